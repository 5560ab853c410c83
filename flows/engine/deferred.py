"""Runs stored once they last: one write for a fast synchronous run.

A synchronous run without a delivery id is not inserted when it starts. If it
ends within `STORE_AFTER_SECONDS`, as most webhook runs do, its end is its
first write: the whole run and its steps in one statement (`store.finish_run`).
Otherwise the lease thread (flows/engine/lease.py) inserts it `running` on its
next tick, so a run that lasts is visible, holds a lease, can be cancelled and
is found by the supervisor if its process dies, as before.

What a process that dies within those first moments leaves: nothing. Its
caller got no answer (no 2xx without a stored run), and no row is stranded.

Whoever stores the run first wins: the lease thread inserts it `running`, or
the executor writes its end. A lock per run orders the two, so the run is
inserted exactly once, and the executor updates the row the lease thread
inserted.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import InterfaceError, OperationalError, connections
from django.utils import timezone

from flows.engine import store
from flows.models import FlowRun

logger = logging.getLogger("weir.engine")

# A run still going this long after it started is inserted `running`.
STORE_AFTER_SECONDS = 0.2


class Pending:
    """A run not stored yet, and whether someone has stored or is ending it."""

    __slots__ = ("run", "since", "lock", "stored", "ending")

    def __init__(self, run: FlowRun):
        self.run = run
        self.since = time.monotonic()
        self.lock = threading.Lock()
        self.stored = False
        self.ending = False


_lock = threading.Lock()
_pending: dict[str, Pending] = {}


def defer(run: FlowRun) -> None:
    """`run` (not stored yet) is starting: store it if it lasts."""
    with _lock:
        _pending[str(run.id)] = Pending(run)


def store_due(now: float | None = None) -> None:
    """Insert the pending runs that have lasted `STORE_AFTER_SECONDS` (the
    lease thread's tick).

    One run's failed INSERT holds up neither the others nor the lease
    renewals that follow on the same tick. While the database is away the run
    stays pending for the next tick. A run whose INSERT is refused, or not
    made because its flow was deleted in its first moments, is given up at
    once, not tried again on every tick: it is stored when it ends, and that
    write finds the flow gone too and ends it `flow_deleted`
    (flows/engine/final_write.py).
    """
    now = time.monotonic() if now is None else now
    with _lock:
        due = [p for p in _pending.values() if now - p.since >= STORE_AFTER_SECONDS]
    for pending in due:
        try:
            _store(pending)
        except (OperationalError, InterfaceError):
            logger.warning(
                "Run %s not stored yet: the database is away", pending.run.id
            )
            continue
        except Exception:  # noqa: BLE001 - refused: its end stores it, or says why not
            logger.warning(
                "Run %s could not be stored running; its end will be",
                pending.run.id,
                exc_info=True,
            )
        with _lock:
            _pending.pop(str(pending.run.id), None)


def _store(pending: Pending) -> None:
    # Connected before the lock: the lease thread closes its connection after
    # every tick, and an executor ending the run waits on this lock, so it
    # waits for the INSERT alone, never for a slow connect (up to
    # DB_CONNECT_TIMEOUT_SECONDS on a loaded database).
    connections[store.write_alias(FlowRun)].ensure_connection()
    with pending.lock:
        if pending.stored or pending.ending:
            return
        run = pending.run
        # A copy: the executor goes on changing its own instance meanwhile.
        row = FlowRun(
            id=run.id,
            flow_id=run.flow_id,
            flow_version=run.flow_version,
            trigger=run.trigger,
            status=FlowRun.Status.RUNNING,
            input=run.input,
            request_meta=run.request_meta,
            retry_of_id=run.retry_of_id,
            created_at=run.created_at,
            started_at=run.started_at,
            lease_expires_at=lease_from_now(),
            attempts=run.attempts,
        )
        if not store.insert_if_flow_exists(row):
            return  # its flow is gone: its end says so (`flow_deleted`)
        pending.stored = True
        # The executor's instance is stored now: its end will be an UPDATE.
        # (It reads this only after `settle`, which orders it after this.)
        run._state.adding = False
        run._state.db = row._state.db


def lease_from_now():
    return timezone.now() + timedelta(seconds=settings.RUN_LEASE_SECONDS)


def settle(run: FlowRun) -> None:
    """The executor is about to write to `run`: from now on nobody else stores
    it. If it was stored meanwhile, `run._state.adding` is False (an UPDATE
    follows); otherwise its end is its first write."""
    with _lock:
        pending = _pending.pop(str(run.id), None)
    if pending is None:
        return
    with pending.lock:  # waits for an INSERT the lease thread is making
        pending.ending = True


def store_now(run: FlowRun) -> None:
    """Insert `run` `running` now if it is not stored (before its first steps
    are written mid-run)."""
    settle(run)
    if run._state.adding:
        store.insert_run(run)
