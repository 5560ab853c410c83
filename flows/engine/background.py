"""Background runs: stored `queued`, executed by a worker.

On the database task engine the stored run is the whole enqueue: a worker
takes the next due queued run straight from the runs table (`execute_next`,
flows/engine/enqueue_db.py). On the rq engine `enqueue_run` stores the run and
hands its id to Django's tasks framework (the task `execute_run`), and a
worker calls `execute_queued`. Either way the run is claimed with one
conditional UPDATE (`queued` -> `running`, `attempts` + 1), so two workers
taking the same run, a task delivered twice, or one re-enqueued by the
supervisor while a first copy waits, execute the run once. Each step is
stored as it completes; a run whose worker died is put back to `queued` by
the supervisor and resumes after its last stored step: every node runs at
least once, and a node that was running when its worker died runs again
(docs/engine.md, "Leases and resuming").
"""

from __future__ import annotations

import contextlib
import functools
import logging
from datetime import timedelta

from django.core.signals import setting_changed
from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Coalesce
from django.dispatch import receiver
from django.utils import timezone
from django_tasks import task
from django_tasks_db import DatabaseBackend

from accounts.audit.actor import Actor
from flows.engine import enqueue_db, fair_queue, lease, orphans, store
from flows.engine.attempts import RequeueForRetry
from flows.engine.deliveries import DeliveryExists
from flows.engine.new_run import new_run
from flows.engine.run_audit import record_started
from flows.engine.runner import Execution
from flows.history.save import at_version
from flows.models import Flow, FlowRun, RunStep
from flows.nodes.errors import ContinueLater

logger = logging.getLogger("weir.engine")

# A queued run whose task was lost (the process died between storing the run
# and enqueueing it, or Redis lost its queue) is enqueued again this long
# after it was stored or last enqueued. A second copy of a task is harmless:
# only one claims the run.
QUEUED_RECHECK_SECONDS = 60
# Another worker may claim the run fair claiming picked first; then look again.
CLAIM_TRIES = 3

STEP_FIELDS = [
    "run_id",
    "position",
    "node_id",
    "node_type",
    "node_name",
    "status",
    "handle",
    "output",
    "error",
    "logs",
    "started_at",
    "finished_at",
    "duration_ms",
]


def queued_lease():
    return timezone.now() + timedelta(seconds=QUEUED_RECHECK_SECONDS)


def enqueue_run(
    flow: Flow,
    input: dict,
    trigger: str,
    *,
    request_meta: dict | None = None,
    delivery_id: str = "",
    error_of: FlowRun | None = None,
    called_by: FlowRun | None = None,
    retry_of: FlowRun | None = None,
    steps: list[dict] = (),
    started_by: Actor | None = None,
) -> FlowRun:
    """Store a `queued` background run of `flow`, then enqueue its execution.

    On the database engine storing the run enqueues it, in one statement
    (flows/engine/enqueue_db.py); on the rq engine the run is committed
    before its task exists. Either way a worker never looks for a run that
    is not there yet, and an answer naming the run is never sent for a run
    that was not stored. Raises whatever the task engine raises (Redis
    away); the run then stays `queued` and the supervisor enqueues it again
    after QUEUED_RECHECK_SECONDS. With a `delivery_id` already used by
    the flow, raises `deliveries.DeliveryExists` with that delivery's run
    (callers go through `flows.engine.once.run_once`, which answers it).
    `retry_of` and `steps` make a retry (flows/engine/again.py): the steps
    (rows without `run_id` and `position`) are stored with the run, before
    any worker can take it, and the run resumes after them. `started_by` is
    audited as `run.started` (flows/engine/run_audit.py).
    """
    links = {"error_of": error_of, "called_by": called_by, "retry_of": retry_of}
    if runs_are_tasks():
        # One statement, the delivery id's claim included.
        run = _queued(flow, input, trigger, request_meta, delivery_id, links)
        with transaction.atomic() if steps else contextlib.nullcontext():
            stored = enqueue_db.insert_run(run)
            if stored:
                _store_steps(run, steps)
        if not stored:
            raise DeliveryExists(store.delivery_run(flow, delivery_id))
        record_started(started_by, run)
        return run
    try:
        with transaction.atomic():
            run = _queued(flow, input, trigger, request_meta, delivery_id, links)
            run.save(force_insert=True)
            _store_steps(run, steps)
    except IntegrityError:  # the delivery's run is stored already
        raise DeliveryExists(store.delivery_run(flow, delivery_id)) from None
    execute_run.enqueue(str(run.id))
    record_started(started_by, run)
    return run


@functools.cache
def runs_are_tasks() -> bool:
    """Whether the task engine is the database's: then a queued run is taken
    from the runs table and has no task of its own. Known once per `TASKS`
    setting: looking the backend up is a context-local read, on every 202."""
    return isinstance(execute_run.get_backend(), DatabaseBackend)


@receiver(setting_changed)
def _forget_engine(*, setting: str, **kwargs) -> None:
    if setting == "TASKS":
        runs_are_tasks.cache_clear()


def announce(run_id, run_after=None) -> None:
    """Tell the workers `run_id` was just made `queued` by an UPDATE, to be
    taken from `run_after` on (at once without): on the database engine a
    NOTIFY (the run is its own task), on rq its task."""
    if runs_are_tasks():
        enqueue_db.wake_workers()
    elif run_after is None:
        execute_run.enqueue(str(run_id))
    else:
        execute_run.using(run_after=run_after).enqueue(str(run_id))


def _queued(flow, input, trigger, request_meta, delivery_id, links) -> FlowRun:
    """A `queued` background run of `flow`, not stored yet."""
    return new_run(
        flow,
        trigger,
        input,
        request_meta,
        delivery_id=delivery_id,
        queued_until=queued_lease(),
        **links,
    )


def _store_steps(run: FlowRun, steps: list[dict]) -> None:
    """`steps` stored as `run`'s first steps (a retry's reused ones)."""
    if steps:
        key = str(run.id)
        rows = [{**row, "run_id": key, "position": n} for n, row in enumerate(steps)]
        RunStep.objects.bulk_create(RunStep(**row) for row in rows)


def claim(run_id: str) -> bool:
    """Take a queued background run for this worker; False if someone else
    has it, it is finished, or it was cancelled while queued."""
    return (
        FlowRun.objects.filter(
            pk=run_id, background=True, status=FlowRun.Status.QUEUED
        ).update(
            status=FlowRun.Status.RUNNING,
            started_at=Coalesce(F("started_at"), timezone.now()),
            lease_expires_at=lease.lease_end(),
            attempts=F("attempts") + 1,
        )
        == 1
    )


def claim_fairly(task_run_id: str) -> str | None:
    """Claim the run the task for `task_run_id` should execute (its own, or
    another owner's: flows/engine/fair_queue.py); its id, or None if none is left."""
    for _ in range(CLAIM_TRIES):
        run_id = fair_queue.next_run_id(task_run_id)
        if claim(run_id):
            return run_id
        if run_id == task_run_id:
            return None
    return task_run_id if claim(task_run_id) else None


def execute_next() -> bool:
    """The database engine's worker: claim the next due queued run (fair
    claiming: flows/engine/fair_queue.py) and execute it to its end. False
    when no run was due, or other workers took each one picked.

    An error while claiming is raised (the database is away: the worker
    stops, as django-tasks-db's does); one while executing is logged, as a
    failed task's is, and the run, still holding its lease, is resumed by the
    supervisor once the lease expires."""
    for _ in range(CLAIM_TRIES):
        run_id = fair_queue.next_due_run_id()
        if run_id is None:
            return False
        if claim(run_id):
            try:
                execute_claimed(run_id)
            except Exception:  # noqa: BLE001 - the worker goes on to the next run
                logger.exception("Run %s failed in its worker", run_id)
            return True
    return False


def execute_queued(task_run_id: str) -> str | None:
    """Execute a queued background run to its end (the task's own, or the one
    fair claiming gives it); its final status, or None when no run was this
    worker's to run."""
    run_id = claim_fairly(task_run_id)
    return None if run_id is None else execute_claimed(run_id)


def execute_claimed(run_id: str) -> str | None:
    """Execute the background run this worker has just claimed; its status
    (None when a retry or continuation was not ours to queue: `requeue`)."""
    run = FlowRun.objects.select_related("flow").filter(pk=run_id).first()
    if run is None:  # its flow was deleted as it was queued
        orphans.delete_run(run_id)
        return None
    # The graph it was queued with, though the flow was edited since.
    at_version(run.flow, run.flow_version)
    stored = list(
        RunStep.objects.filter(run_id=run_id).order_by("position").values(*STEP_FIELDS)
    )
    if stored:
        logger.info("Run %s resumes after %d stored step(s)", run_id, len(stored))
    hops = int(run.request_meta.get("hops", 0))  # set by an async webhook
    pins = run.flow.pins if run.request_meta.get("use_pins") else None  # builder
    execution = Execution(
        run.flow,
        run,
        stored_steps=stored,
        hops=hops,
        retry_state=run.retry_state,
        pins=pins,
    )
    try:
        execution.execute()
    except RequeueForRetry as later:
        return defer_retry(run, later)
    except ContinueLater:
        return continue_later(run)
    return run.status


def defer_retry(run: FlowRun, later: RequeueForRetry) -> str | None:
    """Queue `run` again to retry a node after its wait; this worker is free
    meanwhile. Its status, or None if not ours (see `requeue`)."""
    retry_state = {"node_id": later.node_id, "attempts": later.attempts}
    queued = requeue(run, later.wait, retry_state)
    if queued:
        logger.info("Run %s retries %s in %.1f s", run.id, later.node_id, later.wait)
    return queued


def continue_later(run: FlowRun) -> str | None:
    """Queue `run` again at once, with a fresh deadline: a node ran out of
    time mid-way (a long for_each) and continues where it stopped."""
    queued = requeue(run, 0, None)
    if queued:
        logger.info("Run %s continues on a fresh deadline", run.id)
    return queued


def requeue(run: FlowRun, wait: float, retry_state: dict | None) -> str | None:
    """`run` back to `queued`, to be taken after `wait` seconds. Fenced by
    `attempts` like a final write: a run the supervisor gave to another worker
    is left alone. Its status, or None if not ours."""
    run_after = timezone.now() + timedelta(seconds=wait)
    queued = FlowRun.objects.filter(
        pk=run.pk, attempts=run.attempts, status=FlowRun.Status.RUNNING
    ).update(
        status=FlowRun.Status.QUEUED,
        retry_state=retry_state,
        run_after=run_after,
        # The supervisor re-enqueues it if the task is lost, not before the wait.
        lease_expires_at=run_after + timedelta(seconds=QUEUED_RECHECK_SECONDS),
    )
    if not queued:
        return None
    announce(run.id, run_after)
    return FlowRun.Status.QUEUED


@task
def execute_run(run_id: str) -> str | None:
    """The task a worker runs: execute the queued background run `run_id`."""
    return execute_queued(run_id)
