"""Signals the engine sends; receivers must never raise into a run.

`run_ended(sender=FlowRun, run=...)`: a run's final state is stored (sent by
`Execution.execute`). flows/engine/error_flows.py starts error flows from it;
a signal, because that needs background runs, which import the runner.

Sent once per run, so its receivers are looked up once per sender and kept
(`use_caching`; connecting or disconnecting a receiver clears them), not
under the signal's lock on every run.
"""

from django.dispatch import Signal

run_ended = Signal(use_caching=True)
