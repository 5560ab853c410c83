"""Waking the workers after a 202's enqueue: one NOTIFY per burst, after commit.

An enqueue could send `NOTIFY weir_task_queued` in its own statement, delivered
when it commits (flows/engine/enqueue_db.py). PostgreSQL lets one notifying
transaction commit at a time: it holds a cluster-wide lock from just before
the commit until after it, WAL flush included. Under load the 202s, each a
transaction of its own, therefore committed one after the other, and
PostgreSQL spent more CPU on them than on anything else (8 threads enqueueing:
360 runs/s and ~520 µs of PostgreSQL CPU each with a NOTIFY in each
transaction, ~1700 runs/s and ~320 µs with the NOTIFYs sent as here;
bench/README.md).

So the database engine's enqueue, when it is a transaction of its own, sends no
NOTIFY in its statement and, once it has committed, calls `wake_workers()`:
this process's notifier thread sends one NOTIFY on a connection of its own, and
every enqueue that committed while one was being sent, or within
`COALESCE_SECONDS` of it, shares the next. A worker is still woken only after
the run is visible; it waits for one more round trip, and in a stream of
enqueues up to `COALESCE_SECONDS`, at most. Until issue 35 an enqueue alone in
its process still notified in its statement, to wake a worker that hop sooner;
but alone in its process is not alone in the database (other web processes, the
notifiers), and those NOTIFYs still queued the commits behind each other
(bench/README.md, "Round 8"). Should the notifier's connection fail, or the
process die between the commit and the NOTIFY, the run starts at the workers'
next poll (`WORKER_POLL_SECONDS`), as when no listener is connected. Every
other path that queues a run (the supervisor, a retry, a woken wait, an enqueue
inside a larger transaction) notifies in its transaction.
"""

from __future__ import annotations

import logging
import threading
import time

import psycopg
from django.db import connections

from flows.engine.queue_listener import CHANNEL

logger = logging.getLogger("weir.worker")

NOTIFIER_NAME = "weir-task-notifier"  # its connection's application_name
# At most one NOTIFY per this many seconds: the first enqueue after a quiet
# spell is sent at once; those committed within the window share one at its
# end. A steady 300 202s/s per process otherwise sent ~1 NOTIFY each (one
# round trip is shorter than the gap between 202s), a PostgreSQL transaction
# and a thread switch per run; a worker now wakes up to 5 ms later in a stream.
COALESCE_SECONDS = 0.005


class Notifier:
    """One thread per process that sends the NOTIFYs asked for, coalesced."""

    def __init__(self):
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._alias = "default"
        self._conn: psycopg.Connection | None = None
        self.sent = 0  # NOTIFYs sent (tests)

    def wake_workers(self, alias: str) -> None:
        """Ask for a NOTIFY after this moment; returns at once."""
        self._alias = alias
        self._wanted.set()
        thread = self._thread
        if thread is None or not thread.is_alive():  # first call, or forked since
            self._start()

    def _start(self) -> None:
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            self._conn = None  # a parent's connection is not this process's
            self._thread = threading.Thread(
                target=self._send_forever, name="weir-task-notifier", daemon=True
            )
            self._thread.start()

    def _send_forever(self) -> None:
        while True:
            self._wanted.wait()
            # Cleared before sending: a request committed after this line
            # sets it again and gets a NOTIFY of its own, sent after its commit.
            self._wanted.clear()
            sent_at = time.monotonic()
            self._send()
            time.sleep(max(0.0, COALESCE_SECONDS - (time.monotonic() - sent_at)))

    def _send(self) -> None:
        try:
            if self._conn is None:
                params = connections[self._alias].get_connection_params()
                params["application_name"] = NOTIFIER_NAME
                # A NOTIFY's transaction stores nothing worth a WAL flush: its
                # commit need not wait for one (the enqueue's own commit did).
                params["options"] = (
                    params.get("options", "") + " -c synchronous_commit=off"
                ).strip()
                self._conn = psycopg.connect(**params, autocommit=True)
            self._conn.execute("SELECT pg_notify(%s, '')", [CHANNEL])
            self.sent += 1
        except psycopg.Error:
            # The task is stored: the workers' poll finds it. Connect anew next time.
            logger.warning("Task notifier lost; workers poll meanwhile", exc_info=True)
            if self._conn is not None:
                self._conn.close()
            self._conn = None


notifier = Notifier()
