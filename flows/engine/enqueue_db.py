"""The database task engine's enqueue, in the same statement as the run.

An async webhook's whole job is to store its run `queued` and enqueue its
task. Through the ORM that was two INSERTs and two commits, each compiled:
~2.7 ms of a 202's ~4 ms of CPU (bench/README.md, "Scale-out"). With
django-tasks-db as the engine both rows go in one hand-written statement
(PostgreSQL: the task's INSERT in the run's `WITH` clause; SQLite: one
transaction), so the run and its task appear together or not at all, and a
worker never looks for a run that is not there yet.

The task row is the one django-tasks-db's `DatabaseBackend.enqueue` would
make (a test compares the two), built without its `save()`: its one
`pre_save` receiver sets `run_after`, which is set here the same way. Its
`task_enqueued` signal is sent as the backend sends it, with the TaskResult
its `task_result` property would build (a test compares those too).
"""

from __future__ import annotations

from django.db import connections, router, transaction
from django.utils import timezone
from django_tasks_db import DatabaseBackend
from django_tasks_db.backend import TaskResult
from django_tasks_db.compat import TaskResultStatus, task_enqueued
from django_tasks_db.models import DBTaskResult, get_date_max
from django_tasks_db.utils import normalize_uuid

from flows.engine import sql
from flows.engine.store import write_alias
from flows.models import FlowRun


def enqueues_in_the_database(task) -> bool:
    return isinstance(task.get_backend(), DatabaseBackend)


def insert_run_and_task(run: FlowRun, task, *args) -> None:
    """INSERT `run` and the task row of `task(*args)`, atomically."""
    backend = task.get_backend()
    backend.validate_task(task)
    row = DBTaskResult(
        id=backend._get_id(),
        args_kwargs={"args": list(args), "kwargs": {}},
        priority=task.priority,
        task_path=task.module_path,
        queue_name=task.queue_name,
        run_after=task.run_after or get_date_max(),
        backend_name=backend.alias,
        enqueued_at=timezone.now(),
    )
    using = write_alias(FlowRun)
    if router.db_for_write(DBTaskResult) != using:
        raise ValueError("The run and its task must share a database.")
    runs = sql.Table.of(FlowRun, None, using)
    tasks = sql.Table.of(DBTaskResult, None, using)
    if connections[using].vendor == "postgresql":
        # Each row as one JSON parameter (see `sql.Table.insert_from_json`).
        statement = f"WITH run AS ({runs.insert_from_json()}) "
        statement += tasks.insert_from_json()
        sql.execute(using, statement, [runs.json_rows([run]), tasks.json_rows([row])])
    else:
        with transaction.atomic(using=using):
            sql.execute(using, runs.insert(), runs.values_of(run))
            sql.execute(using, tasks.insert(), tasks.values_of(row))
    run._state.adding, run._state.db = False, using
    task_enqueued.send(type(backend), task_result=_enqueued(row, task))


def _enqueued(row: DBTaskResult, task) -> TaskResult:
    """What `row.task_result` gives for a task just enqueued, built from the
    task in hand: that property imports the task by its path and validates a
    copy of it, 15% of a 202's CPU, to tell receivers what we already know."""
    return TaskResult(
        db_result=row,
        task=task,
        id=normalize_uuid(row.id),
        status=TaskResultStatus.READY,
        enqueued_at=row.enqueued_at,
        started_at=None,
        last_attempted_at=None,
        finished_at=None,
        args=row.args_kwargs["args"],
        kwargs=row.args_kwargs["kwargs"],
        backend=row.backend_name,
        errors=[],
        worker_ids=row.worker_ids,
    )
