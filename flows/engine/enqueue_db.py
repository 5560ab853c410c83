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
On PostgreSQL a lone enqueue sends its NOTIFY in its own statement, delivered
when it commits; an enqueue that is a transaction of its own while others are in
flight in this process wakes the workers after its commit instead, one NOTIFY per
burst (flows/engine/queue_notify.py). A run put back to `queued` by an UPDATE (the
supervisor, a retry, a woken wait) sends one with it (`wake_workers`). On SQLite
the workers poll.
"""

from __future__ import annotations

import threading

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
        with in_flight as others:
            # A transaction of its own while others enqueue here: it wakes the
            # workers itself once committed (flows/engine/queue_notify.py).
            # Alone, a NOTIFY in its statement costs nothing to wait for and
            # wakes a worker one hop sooner.
            quiet = bool(others) and connection.get_autocommit()
            quiet = quiet and not connection.in_atomic_block
            statement = _statement(runs, quiet)
            stored = sql.execute(using, statement, [runs.json_rows([run])]) == 1
        if stored and quiet:
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


def _statement(runs: sql.Table, quiet: bool) -> str:
    """PostgreSQL: the run's INSERT from one JSON parameter
    (`sql.Table.insert_from_json`), doing nothing on a taken delivery id; not
    `quiet`, with the NOTIFY that wakes a worker once it commits, sent only
    if the run went in. Either way one row touched or returned when stored."""
    key = (runs.name, quiet)
    if key not in _STATEMENTS:
        insert = f"{runs.insert_from_json()} ON CONFLICT DO NOTHING"
        _STATEMENTS[key] = (
            insert
            if quiet
            else f"WITH run AS ({insert} RETURNING 1) {_NOTIFY} FROM run"
        )
    return _STATEMENTS[key]
