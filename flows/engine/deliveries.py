"""Idempotent deliveries: one run per (flow, delivery id), whoever receives it.

A webhook sender that retries (a timeout, a 5xx, a lost answer) sends the
same delivery id again: Standard Webhooks' `webhook-id`, or an
`Idempotency-Key`. The id is stored on the run (`FlowRun.delivery_id`) under
the unique constraint `run_unique_delivery_per_flow`, so the database decides
which copy runs, across processes and machines, with no cache involved.
Every caller starts such a run through `run_once` (flows/engine/once.py),
which makes the lookup and the claim below and answers with one run.

- A new id: the run's own INSERT claims it (no extra statement).
- An id whose run exists: `DeliveryExists` carries that run; the caller
  answers from it (its stored answer, or 409 while it is still going).
- An id whose run was interrupted (its process died mid-run): the same row is
  reset and runs again, so a delivery never has two runs. Only when the new
  copy carries the same input: a different body under a used id is the
  sender's mistake, or someone guessing ids, and gets `DeliveryExists`.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from flows.engine import lease, store
from flows.models import Flow, FlowRun, RunStep

# Runs stored before the `interrupted` state existed were `failed` with code
# `interrupted` (migration 0007 moves them; old rows restored from a backup may not).
INTERRUPTED = Q(status=FlowRun.Status.INTERRUPTED) | Q(
    status=FlowRun.Status.FAILED, error__code="interrupted"
)
# Claim, look up, reset: each step can lose a race to another copy of the
# delivery, and the next round sees what that copy did.
ATTEMPTS = 3


# Delivery ids the server makes itself start with one of these; an id from a
# caller (Idempotency-Key, a signed webhook-id) may not, so a caller can neither
# take a future tick's id (cancelling its run) nor replay a tick's results, nor
# plant a run under a called flow's child id (`call:<parent>:<node>`) whose
# result the parent would then read.
INTERNAL_PREFIXES = ("schedule:", "call:")


def is_internal(delivery_id: str) -> bool:
    return delivery_id.startswith(INTERNAL_PREFIXES)


class DeliveryExists(Exception):
    """The delivery already has a run (None: another copy is claiming it now)."""

    def __init__(self, run: FlowRun | None):
        super().__init__("This delivery already has a run.")
        self.run = run


def was_interrupted(run: FlowRun) -> bool:
    return run.status == FlowRun.Status.INTERRUPTED or (
        run.status == FlowRun.Status.FAILED
        and (run.error or {}).get("code") == "interrupted"
    )


def answered_from(flow: Flow, delivery_id: str, input: dict) -> FlowRun | None:
    """The run a repeat of this delivery is answered from, found before any cap.

    A replay gets its stored answer (or 409) even while admission would refuse
    a new run. None for a new delivery, and for one that runs again (its run
    was interrupted and the body is the same); `start_delivery` still decides
    any race. Costs one indexed query, only for requests that carry an id.
    """
    if not delivery_id:
        return None
    run = store.delivery_run(flow, delivery_id)
    if run is None or (was_interrupted(run) and run.input == input):
        return None
    return run


def start_delivery(
    flow: Flow,
    trigger: str,
    input: dict,
    request_meta: dict,
    delivery_id: str,
    called_by: FlowRun | None = None,
) -> FlowRun:
    """A `running` run for this delivery, or DeliveryExists with its run."""
    existing = None
    for _ in range(ATTEMPTS):
        run = store.start_run(
            flow,
            trigger,
            input,
            request_meta,
            delivery_id=delivery_id,
            called_by=called_by,
        )
        if run is not None:
            return run
        existing = store.delivery_run(flow, delivery_id)
        if existing is None:  # deleted since the INSERT met it: claim again
            continue
        if not (
            was_interrupted(existing)
            and existing.input == input
            and existing.called_by_id == getattr(called_by, "id", None)
        ):
            raise DeliveryExists(existing)
        restarted = _restart(existing, flow, input, request_meta)
        if restarted is not None:
            return restarted
    raise DeliveryExists(existing)


def _restart(
    run: FlowRun, flow: Flow, input: dict, request_meta: dict
) -> FlowRun | None:
    """Reset an interrupted run to `running`; None if another copy got it first.

    The conditional UPDATE is the claim: of two copies retrying at once, one
    changes the row and the other changes nothing. The old attempt's steps go,
    so the run reads as the one attempt that answered.
    """
    now = timezone.now()
    fresh = {
        "status": FlowRun.Status.RUNNING,
        "flow_version": flow.version,
        "input": input,
        "request_meta": request_meta,
        "results": {},
        "error": None,
        "response": None,
        "created_at": now,  # the stale-run sweep must not take it for the old one
        "started_at": now,
        "finished_at": None,
        "duration_ms": None,
        # A fresh lease and attempt: the supervisor watches it like a new run,
        # and a late write of the dead attempt is fenced off.
        "lease_expires_at": lease.lease_end(),
        "attempts": run.attempts + 1,
        "background": False,
        "cancel_requested": False,
    }
    with transaction.atomic():
        if not FlowRun.objects.filter(INTERRUPTED, pk=run.pk).update(**fresh):
            return None
        RunStep.objects.filter(run_id=run.pk).delete()
    for name, value in fresh.items():
        setattr(run, name, value)
    run.flow = flow
    return run
