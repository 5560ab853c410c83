"""Runs whose flow is gone: what the database's foreign key used to prevent.

`FlowRun.flow` has no constraint in the database (flows migration 0048): its
check locked the flow's row for every run stored, and one flow's concurrent
202s all queued on that lock. Deleting a flow still deletes its runs, by
Django's cascade, in Python, in the deleting transaction. What the constraint
also did was make a run stored *while* its flow was being deleted wait for the
delete and then fail. Without it such a run is stored and its flow is gone: a
run whose request read the flow just before the delete committed, and stored
the run after the cascade had collected the flow's runs.

Nothing shows or takes such a run: every page, list and count reaches runs
through their flow's workspace (a join), and a worker picks runs by their
flow's workspace too (flows/engine/fair_queue.py). So it must not stay:

- once the delete commits, the flow's runs stored meanwhile are deleted
  (`delete_after_flow`, connected to the flow's `post_delete`);
- a run stored even later (its request was between reading the flow and its
  INSERT for the whole delete) is queued or running with a lease: when the
  lease expires the supervisor deletes it (`delete_expired`) instead of
  queueing it again; a worker that claims one by its id (the rq engine's task)
  deletes it (`delete_run`). A synchronous run that got that far runs to its
  end and is then a finished run nobody sees (or waits, at a form or an
  approval, for good): retention's next pass deletes it, whatever the limits
  (flows/engine/retention.py).
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.db.models import Exists, OuterRef

from flows.models import Flow, FlowRun

logger = logging.getLogger("weir.worker")


def without_flow(runs):
    """`runs` narrowed to those whose flow no longer exists."""
    return runs.filter(~Exists(Flow.objects.filter(pk=OuterRef("flow_id"))))


def delete_after_flow(sender, instance: Flow, using: str, **kwargs) -> None:
    """post_delete receiver for Flow: once the delete has committed, delete the
    runs of the flow stored while it was being deleted (usually none: one
    indexed read)."""
    flow_id = instance.pk

    def delete_late_runs():
        deleted, _ = FlowRun.objects.using(using).filter(flow_id=flow_id).delete()
        if deleted:
            logger.info("Deleted runs stored as flow %s was deleted", flow_id)

    transaction.on_commit(delete_late_runs, using=using)


def delete_expired() -> int:
    """Delete the queued or running runs past their lease whose flow is gone
    (the supervisor's pass); how many."""
    _, deleted = without_flow(FlowRun.objects.lease_expired()).delete()
    return deleted.get(FlowRun._meta.label, 0)


def delete_run(run_id) -> None:
    """Delete the run `run_id` if its flow is gone (a worker claimed it by id)."""
    without_flow(FlowRun.objects.filter(pk=run_id)).delete()
