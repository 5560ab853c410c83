"""Idle run workers wake when a run is queued, not at their next poll.

A database-engine worker (flows/engine/worker.py) looks for a due queued run,
then a ready task, and, finding neither, waits before looking again: a run
queued just after a look used to wait the whole poll interval to start
(median ~200 ms at `WORKER_POLL_SECONDS` 0.2, bench/README.md "Workers"). On
PostgreSQL every enqueue sends `NOTIFY weir_task_queued` (a run's: its INSERT
or UPDATE, flows/engine/enqueue_db.py; another task's: a trigger on the task
table, migration 0019), delivered when its transaction commits, and each idle
worker waits for it on a connection of its own that `LISTEN`s: it looks again
as soon as the run is visible.

The poll stays the fallback: a wait never lasts longer than the interval, so
a run whose `run_after` comes due, or one queued while the listener was
away, starts at the next poll as before. A listener connection that breaks
is closed and the worker sleeps out the interval; it connects again at most
once every `RECONNECT_SECONDS`. On SQLite (no NOTIFY) the worker only sleeps,
and its interval defaults to a short one (config/settings.py).
"""

from __future__ import annotations

import logging
import time

import psycopg
from django.db import connections, router
from django_tasks_db.models import DBTaskResult

logger = logging.getLogger("weir.worker")

CHANNEL = "weir_task_queued"
LISTENER_NAME = "weir-task-listener"  # its connection's application_name
RECONNECT_SECONDS = 1.0
# How often an idle listener checks that its connection still answers: a
# server that vanished without closing the socket sends neither notes nor errors.
CHECK_SECONDS = 5.0


class Wakeup:
    """A LISTEN connection to wait on, or plain sleep where there is none."""

    def __init__(self, alias: str | None = None):
        self.alias = alias or router.db_for_write(DBTaskResult)
        self._conn: psycopg.Connection | None = None
        self._connect_after = 0.0
        self._checked_at = 0.0

    @property
    def listening(self) -> bool:
        return self._conn is not None

    def wait(self, seconds: float) -> None:
        """Return once a task was queued (at once if one was since the last
        wait), or after `seconds` at the latest."""
        deadline = time.monotonic() + seconds
        conn = self._connection()
        if conn is not None:
            try:
                if time.monotonic() - self._checked_at > CHECK_SECONDS:
                    conn.execute("SELECT 1")
                    self._checked_at = time.monotonic()
                for _ in conn.notifies(timeout=seconds, stop_after=1):
                    return
                return
            except psycopg.Error:
                logger.warning("Task listener lost; polling until it is back")
                self.close()
        time.sleep(max(0.0, deadline - time.monotonic()))

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _connection(self) -> psycopg.Connection | None:
        if self._conn is not None or time.monotonic() < self._connect_after:
            return self._conn
        if connections[self.alias].vendor != "postgresql":
            self._connect_after = float("inf")  # nothing to listen to, ever
            return None
        self._connect_after = time.monotonic() + RECONNECT_SECONDS
        params = connections[self.alias].get_connection_params()
        params["application_name"] = LISTENER_NAME
        try:
            self._conn = psycopg.connect(**params, autocommit=True)
            self._conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.Error:
            logger.warning("Task listener cannot connect; polling", exc_info=True)
            self.close()
            return None
        self._checked_at = time.monotonic()
        return self._conn
