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

A delivery id is claimed by the same statement: the run's INSERT does nothing
when the flow already has a run of that delivery (`run_unique_delivery_per_flow`),
and then no task is inserted either. On PostgreSQL an enqueue that is a
transaction of its own, while others are in flight in this process, wakes the
workers after its commit, one NOTIFY per burst (flows/engine/queue_notify.py),
instead of by the trigger's NOTIFY in its transaction.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime

from django.db import connections, router, transaction
from django.utils import timezone
from django_tasks_db import DatabaseBackend
from django_tasks_db.backend import TaskResult
from django_tasks_db.compat import TaskResultStatus, task_enqueued
from django_tasks_db.models import DBTaskResult, get_date_max
from django_tasks_db.utils import normalize_uuid

from flows.engine import sql
from flows.engine.queue_notify import QUIET_SETTING, QUIET_VALUE, notifier
from flows.engine.store import write_alias
from flows.models import FlowRun


def database_backend(task) -> DatabaseBackend | None:
    """`task`'s backend when it is the database engine's, else None."""
    backend = task.get_backend()
    return backend if isinstance(backend, DatabaseBackend) else None


def insert_run_and_task(run: FlowRun, backend: DatabaseBackend, task, *args) -> bool:
    """INSERT `run` and the task row of `task(*args)` on `backend`, atomically;
    False (and nothing stored) when `run.delivery_id` is taken by another run
    of its flow."""
    _validate(backend, task)
    row = _task_row(
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
    connection = connections[using]
    if connection.vendor == "postgresql":
        params = [runs.json_rows([run]), task_json(row)]
        with in_flight as others:
            # A transaction of its own while others enqueue here: it wakes the
            # workers itself once committed (flows/engine/queue_notify.py).
            # Alone, the trigger's NOTIFY costs nothing to wait for and wakes
            # a worker one hop sooner.
            quiet = bool(others) and connection.get_autocommit()
            quiet = quiet and not connection.in_atomic_block
            stored = sql.execute(using, _statement(runs, tasks, quiet), params) == 1
        if stored and quiet:
            notifier.wake_workers(using)
    else:
        with transaction.atomic(using=using):
            statement = runs.insert() + " ON CONFLICT DO NOTHING"
            stored = sql.execute(using, statement, runs.values_of(run)) == 1
            if stored:
                sql.execute(using, tasks.insert(), tasks.values_of(row))
    if not stored:
        return False
    run._state.adding, run._state.db = False, using
    task_enqueued.send(type(backend), task_result=_enqueued(row, task))
    return True


def _validate(backend: DatabaseBackend, task) -> None:
    """`backend.validate_task(task)`, once per backend object and task: its
    answer depends on nothing else (the task's function, priority, queue and
    `run_after`; the backend's queues), and inspecting the function's
    signature on every 202 cost ~3 µs. A backend made anew (settings changed)
    validates again."""
    valid = backend.__dict__.setdefault(_VALID_TASKS, set())
    if task not in valid:
        backend.validate_task(task)
        valid.add(task)


_VALID_TASKS = "weir_valid_tasks"


def task_json(row: DBTaskResult) -> str:
    """`row` as the one-row JSON array `sql.Table.json_rows` makes of it, keyed
    by column (a test compares the two), written field by field: the generic
    getter and `default` hook cost ~3x this on every 202."""
    return json.dumps(
        [
            {
                "id": str(row.id),
                "status": row.status,
                "enqueued_at": _iso(row.enqueued_at),
                "started_at": _iso(row.started_at),
                "finished_at": _iso(row.finished_at),
                "args_kwargs": row.args_kwargs,
                "priority": row.priority,
                "task_path": row.task_path,
                "worker_ids": row.worker_ids,
                "queue_name": row.queue_name,
                "backend_name": row.backend_name,
                "run_after": _iso(row.run_after),
                "return_value": row.return_value,
                "exception_class_path": row.exception_class_path,
                "traceback": row.traceback,
            }
        ],
        allow_nan=False,
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


# Every column's attname and default, in the order of the task model's
# positional arguments (`_task_row`).
_TASK_FIELDS = tuple(
    (field.attname, field.get_default) for field in DBTaskResult._meta.concrete_fields
)


def _task_row(**values) -> DBTaskResult:
    """A new task row from these values by attname, the other fields at their
    defaults, built positionally as a loaded row is (as flows/engine/store.py
    builds a run): keyword arguments cost a lookup per field, ~2x the CPU."""
    return DBTaskResult(
        *[
            values[name] if name in values else default()
            for name, default in _TASK_FIELDS
        ]
    )


class InFlight:
    """How many of this process's enqueues are between their start and their
    commit: `with in_flight as others` counts one in for the block, and gives
    how many others were in (a class, not a generator's context manager: this
    is on every 202)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._count = 0

    def __enter__(self) -> int:
        with self._lock:
            others, self._count = self._count, self._count + 1
        return others

    def __exit__(self, *exc_info) -> None:
        with self._lock:
            self._count -= 1


in_flight = InFlight()
_STATEMENTS: dict[tuple, str] = {}


def _statement(runs: sql.Table, tasks: sql.Table, quiet: bool) -> str:
    """PostgreSQL: the run's INSERT in the task's `WITH` clause, each row one
    JSON parameter (`sql.Table.insert_from_json`); the task only if the run
    went in. `quiet`: the trigger does not NOTIFY (`weir.notify` = 'later',
    for this transaction only: flows/engine/queue_notify.py)."""
    key = (runs.name, tasks.name, quiet)
    if key not in _STATEMENTS:
        ctes, conditions = [], ["EXISTS (SELECT FROM run)"]
        if quiet:
            ctes.append(
                f"quiet AS (SELECT set_config('{QUIET_SETTING}', '{QUIET_VALUE}', "
                "true))"
            )
            conditions.append("EXISTS (SELECT FROM quiet)")
        ctes.append(
            f"run AS ({runs.insert_from_json()} ON CONFLICT DO NOTHING RETURNING 1)"
        )
        _STATEMENTS[key] = (
            f"WITH {', '.join(ctes)} {tasks.insert_from_json()} "
            f"WHERE {' AND '.join(conditions)}"
        )
    return _STATEMENTS[key]


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
