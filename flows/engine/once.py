"""`run_once`: the one way a run starts under a delivery id.

A delivery id names one event that may arrive more than once: a webhook's
signed id (webhook-id, X-GitHub-Delivery) or `Idempotency-Key`, a schedule's
tick (`schedule:<tick>`), a called flow's child (`call:<run>:<node>[:<item>]`).
However many copies arrive, in however many processes, the event gets one run
(flows/engine/deliveries.py has the rules): one lookup, one INSERT guarded by
the unique constraint `run_unique_delivery_per_flow`, one answer, `Once`: the
run, and whether it is an earlier copy's (`repeat`).

- Before a cap: with `admit` (a synchronous webhook's slot, which may wait
  or refuse) the lookup comes first, so a repeat is answered at once however
  busy the server is; a new delivery's INSERT then claims the id.
- Otherwise (a 202, a tick, a called child) the INSERT comes first: the
  run's own (`run_flow`), or the one that queues it with its task
  (`enqueue_run`); the lookup is made only when it met a run, or when the
  owner's queue is full (`queue_cap`). A repeat is answered all the same, and
  a new delivery pays for no lookup (the 202 is benchmarked:
  bench/instructions.py; a for_each looks its children up in one query).

Without a delivery id nothing is looked up or claimed: the run starts or is
queued. A copy that loses the race to a copy still claiming gets
`Once(None, repeat=True)`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext
from typing import NamedTuple

from flows.engine import fair_queue, store
from flows.engine.background import enqueue_run
from flows.engine.deliveries import DeliveryExists, answered_from
from flows.engine.start import run_flow
from flows.models import Flow, FlowRun

_FREE = nullcontext()


class Once(NamedTuple):
    """A delivery's one run: `repeat` when an earlier copy made it (None:
    another copy is claiming it this moment)."""

    run: FlowRun | None
    repeat: bool


def run_once(
    flow: Flow,
    input: dict,
    trigger: str,
    *,
    delivery_id: str = "",
    background: bool = False,
    admit: AbstractContextManager = _FREE,
    queue_cap: bool = False,
    **options,
) -> Once:
    """Run `flow` for this delivery (`run_flow`), or queue it (`background`:
    `enqueue_run`), unless the delivery has a run already.

    `admit` (synchronous) is held while a new run executes: the caller's
    caps (flows/engine/admission.py). `queue_cap` (background) refuses with
    `fair_queue.QueueFull` when the flow's owner may queue no more runs, but
    never a repeat. `options` go to `run_flow` or `enqueue_run` as given.
    """
    if background:
        return _queue_once(flow, input, trigger, delivery_id, queue_cap, options)
    if delivery_id and admit is not _FREE:
        earlier = answered_from(flow, delivery_id, input)
        if earlier is not None:
            return Once(earlier, True)
    try:
        with admit:
            run = run_flow(flow, input, trigger, delivery_id=delivery_id, **options)
    except DeliveryExists as exists:  # the INSERT met another copy's run
        return Once(exists.run, True)
    return Once(run, False)


def _queue_once(flow, input, trigger, delivery_id, queue_cap, options) -> Once:
    """`run_once` in the background: claim first, look up only on a conflict
    or a full queue."""
    if queue_cap:
        try:
            fair_queue.check_room(flow)
        except fair_queue.QueueFull:
            earlier = delivery_id and store.delivery_run(flow, delivery_id)
            if not earlier:
                raise
            return Once(earlier, True)
    try:
        run = enqueue_run(flow, input, trigger, delivery_id=delivery_id, **options)
    except DeliveryExists as exists:
        return Once(exists.run, True)
    return Once(run, False)
