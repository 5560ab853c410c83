"""Waking parked runs (flows/engine/waits.py parks them).

Two things wake a waiting run, each one conditional UPDATE `waiting` ->
`queued` that stores what the wait node will output in `wait_state.resumed`,
then enqueues the run:

- the supervisor (`wake_due`, every pass), once `lease_expires_at` has passed:
  the end of a duration or until wait, or the timeout of a callback wait, so
  a wait survives any restart and is at most one supervisor interval late;
- a POST to the run's resume URL (`resume`) while a callback wait is open.

Whichever UPDATE comes first wins; the other finds the run no longer
`waiting` (a second POST is a 409). A worker then resumes the run like any
other: the stored steps replay, the wait node runs again, finds `resumed` in
its context and returns it as its output (flows/nodes/wait.py).
"""

from __future__ import annotations

from django.utils import timezone

from flows.engine import waits
from flows.engine.background import announce, queued_lease
from flows.models import FlowRun

WAITING = FlowRun.Status.WAITING


def _wake(run_id, runs, state: dict, resumed: dict) -> bool:
    """One conditional UPDATE `waiting` -> `queued`, then the task."""
    woken = runs.update(
        status=FlowRun.Status.QUEUED,
        wait_state={**state, "resumed": resumed},
        lease_expires_at=queued_lease(),
    )
    if woken:
        announce(run_id)
    return bool(woken)


def wake_due() -> int:
    """Wake the waiting runs whose time has come: a duration or until wait
    that ended, a callback wait that timed out. How many were woken."""
    woken = 0
    due = FlowRun.objects.filter(status=WAITING, lease_expires_at__lt=timezone.now())
    for run_id, state in due.values_list("pk", "wait_state")[:500]:
        state = state or {}
        linked = state.get("mode") in waits.LINKED
        resumed = {"timed_out": True} if linked else {}
        # Conditional on the run still waiting, with its time still past: of a
        # resume POST and two supervisors racing here, one wins.
        woken += _wake(run_id, due.filter(pk=run_id), state, resumed)
    return woken


def resume(run_id, node_id: str, received: dict) -> bool:
    """Resume the run waiting for a callback at `node_id` with `received`
    ({approved, body, query, received_at}); False when it is not waiting
    there (already resumed, timed out, cancelled or finished)."""
    runs = FlowRun.objects.filter(
        pk=run_id,
        status=WAITING,
        wait_state__node_id=node_id,
        wait_state__mode__in=waits.LINKED,
        lease_expires_at__gte=timezone.now(),
    )
    state = runs.values_list("wait_state", flat=True).first()
    return state is not None and _wake(run_id, runs, state, received)
