"""The supervisor: finds runs that no process is executing any more.

Every running run holds a lease its executor renews (flows/engine/lease.py).
`recover()` makes one pass over the runs whose lease has expired:

- a run whose cancel was asked for ends `cancelled`;
- a synchronous run (its caller's request died with the process) ends
  `interrupted`;
- a background run goes back to `queued` and is enqueued again: a worker
  resumes it after its last stored step. So is a queued run whose task was
  lost (see `background.QUEUED_RECHECK_SECONDS`).

A queued or running run past its lease whose flow is gone (stored as the flow
was deleted: flows/engine/orphans.py) is deleted, not queued again.

It also wakes the waiting runs whose time has come (flows/engine/wake.py).

`manage.py supervise` calls it once at start and then every
`SUPERVISE_INTERVAL_SECONDS`, so no run stays `running` longer than its lease
plus one interval. Safe on several machines at once: each change is one
conditional UPDATE that only one supervisor wins.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils import timezone

from flows.engine import orphans, store, wake
from flows.engine.background import announce, queued_lease
from flows.models import FlowRun

CANCELLED = {
    "node_id": None,
    "code": "cancelled",
    "message": "The run was cancelled.",
}


@dataclass
class Recovery:
    cancelled: int = 0
    interrupted: int = 0
    requeued: int = 0
    woken: int = 0  # waiting runs whose wait ended (not stranded: not in total)
    orphaned: int = 0  # runs whose flow was deleted as they were stored, deleted

    @property
    def total(self) -> int:
        return self.cancelled + self.interrupted + self.requeued


def recover() -> Recovery:
    done = Recovery()
    done.orphaned = orphans.delete_expired()
    expired = FlowRun.objects.lease_expired()
    done.cancelled = expired.filter(cancel_requested=True).update(
        status=FlowRun.Status.CANCELLED,
        finished_at=timezone.now(),
        lease_expires_at=None,
        error=CANCELLED,
    )
    done.interrupted = store.mark_interrupted(expired.filter(background=False))
    for run_id in expired.filter(background=True).values_list("pk", flat=True):
        # Conditional on the lease still being expired: of two supervisors
        # racing here, one re-enqueues.
        taken = (
            FlowRun.objects.lease_expired()
            .filter(pk=run_id)
            .update(status=FlowRun.Status.QUEUED, lease_expires_at=queued_lease())
        )
        if taken:
            announce(run_id)
            done.requeued += 1
    done.woken = wake.wake_due()
    return done
