"""The database task engine's queue is the runs table: storing a run enqueues it.

With django-tasks-db as the engine a background run has no task row: a
`queued` run is itself the work a worker takes, as soon as its `run_after`
(if set) has passed (`background.execute_next`, fair claiming in
flows/engine/fair_queue.py). So an async webhook's enqueue is one INSERT of
one row. Its task row used to go in with it, in the same statement: two rows
in two tables, a foreign key checked and a trigger fired, ~0.6 ms of
PostgreSQL's CPU against ~0.1-0.2 ms for one plain row (bench/README.md,
"Round 7").

A delivery id is claimed by the same statement: the run's INSERT does nothing
when the flow already has a run of that delivery (`run_unique_delivery_per_flow`).

The idle workers wait on `LISTEN weir_task_queued` (flows/engine/queue_listener.py).
An enqueue that is a transaction of its own (a 202's) sends no NOTIFY: once it
has committed it asks this process's notifier for one, one NOTIFY per burst
(flows/engine/queue_notify.py). PostgreSQL commits one notifying transaction at
a time, WAL flush included, and a 202 alone in its process is rarely alone in
the database: with a NOTIFY in each such statement, 8 clients' enqueues made a
fifth of the runs/s and cost ~0.1-0.2 ms more of PostgreSQL's CPU each
(bench/README.md, "Round 8"). An enqueue inside a larger transaction notifies
in its statement, delivered when that transaction commits (`_statement`), as
does a run put back to `queued` by an UPDATE (the supervisor, a retry, a woken
wait: `wake_workers`). On SQLite the workers poll.
"""

from __future__ import annotations

from django.db import connections

from flows.engine import sql
from flows.engine.queue_listener import CHANNEL
from flows.engine.queue_notify import notifier
from flows.engine.store import write_alias
from flows.models import FlowRun

_NOTIFY = f"SELECT pg_notify('{CHANNEL}', '')"


def insert_run(run: FlowRun) -> bool:
    """INSERT the queued `run`, which enqueues it; False (and nothing stored)
    when `run.delivery_id` is taken by another run of its flow."""
    using = write_alias(FlowRun)
    runs = sql.Table.of(FlowRun, None, using)
    connection = connections[using]
    if connection.vendor == "postgresql":
        later = connection.get_autocommit() and not connection.in_atomic_block
        statement = _statement(runs, notify=not later)
        stored = sql.execute(using, statement, [runs.json_rows([run])]) == 1
        if stored and later:
            notifier.wake_workers(using)
    else:
        statement = runs.insert() + " ON CONFLICT DO NOTHING"
        stored = sql.execute(using, statement, runs.values_of(run)) == 1
    if stored:
        run._state.adding, run._state.db = False, using
    return stored


def wake_workers() -> None:
    """Wake the idle workers for a run just made `queued` by an UPDATE: a
    NOTIFY in the current transaction, delivered once it commits (at once
    outside one). Nothing on SQLite, whose workers poll."""
    connection = connections[write_alias(FlowRun)]
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(_NOTIFY)


_STATEMENTS: dict[tuple, str] = {}


def _statement(runs: sql.Table, notify: bool) -> str:
    """PostgreSQL: the run's INSERT from one JSON parameter
    (`sql.Table.insert_from_json`), doing nothing on a taken delivery id; with
    `notify`, with the NOTIFY that wakes a worker once its transaction commits,
    sent only if the run went in. Either way one row touched or returned when
    stored."""
    key = (runs.name, notify)
    if key not in _STATEMENTS:
        insert = f"{runs.insert_from_json()} ON CONFLICT DO NOTHING"
        _STATEMENTS[key] = (
            f"WITH run AS ({insert} RETURNING 1) {_NOTIFY} FROM run"
            if notify
            else insert
        )
    return _STATEMENTS[key]
