"""Error flows: "on failure, run flow X" (a flow's `error_flow`).

When a run ends `failed` or `timed_out`, a background run of its flow's error
flow starts with trigger `error` and input `{run_id, flow_id, node_id, error}`;
the new run's `error_of` links back (and the failed run lists it in
`error_runs`). A run with trigger `error` never starts another, so an error
flow that fails, or names itself through a chain, cannot loop. Connected to
the engine's `run_ended` signal (FlowsConfig.ready imports this module).
"""

from __future__ import annotations

import logging

from django.dispatch import receiver

from flows.engine.background import enqueue_run
from flows.engine.signals import run_ended
from flows.models import Flow, FlowRun

logger = logging.getLogger("weir.engine")

FAILED_STATES = (FlowRun.Status.FAILED, FlowRun.Status.TIMED_OUT)


@receiver(run_ended, dispatch_uid="weir-error-flows")
def on_run_ended(sender, run: FlowRun, **kwargs) -> None:
    start_error_flow(run)


def start_error_flow(run: FlowRun) -> FlowRun | None:
    """The error flow's queued run for `run`, or None when there is none to start."""
    if run.status not in FAILED_STATES or run.trigger == FlowRun.Trigger.ERROR:
        return None
    flow = Flow.objects.filter(pk=run.flow_id).values("workspace_id", "error_flow_id")
    flow = flow.first()
    if flow is None or not flow["error_flow_id"]:
        return None
    # The workspace is checked again: the setting was valid when saved, but
    # the error flow could have moved since.
    target = Flow.objects.filter(
        pk=flow["error_flow_id"], workspace_id=flow["workspace_id"]
    ).first()
    if target is None or target.pk == run.flow_id:
        return None
    error = run.error or {}
    input = {
        "run_id": str(run.id),
        "flow_id": str(run.flow_id),
        "node_id": error.get("node_id"),
        "error": error,
    }
    try:
        return enqueue_run(target, input, FlowRun.Trigger.ERROR, error_of=run)
    except Exception:  # the failed run's own answer must not suffer for it
        logger.exception("Run %s: its error flow %s did not start", run.id, target.pk)
        return None
