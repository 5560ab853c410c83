"""Leases: how a process says "I am still executing these runs".

Every running run has `lease_expires_at`. Its executor (a web thread or a
worker) registers the run here; one daemon thread per process renews the
leases of the runs that have been going for a while, in one UPDATE per tick,
and reads their `cancel_requested` flags in the same pass. When the process
dies nothing renews them, and the supervisor (flows/engine/supervisor.py)
finds them once the lease has expired.

The same thread stores the synchronous runs that outlast
`deferred.STORE_AFTER_SECONDS` (flows/engine/deferred.py).

A run shorter than `RENEW_AFTER_SECONDS` costs no query at all: its lease,
set when it was stored, outlives it. So does a cancel check: the engine asks
`is_cancelled(run_id)`, a set lookup, before every node.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta

from django.conf import settings
from django.db import connection
from django.utils import timezone

from flows.engine import deferred

logger = logging.getLogger("weir.lease")

TICK_SECONDS = 0.25
# A run younger than this is neither renewed nor checked for a cancel.
RENEW_AFTER_SECONDS = 0.5

_lock = threading.Lock()
_active: dict[str, float] = {}  # run id -> time.monotonic() of registration
_cancelled: set[str] = set()
_thread: threading.Thread | None = None


def hold(run_id) -> None:
    """This process now executes `run_id`: keep its lease alive."""
    global _thread
    with _lock:
        _active[str(run_id)] = time.monotonic()
        if _thread is None or not _thread.is_alive():
            _thread = threading.Thread(target=_renew_forever, daemon=True)
            _thread.name = "weir-lease"
            _thread.start()


def release(run_id) -> None:
    with _lock:
        _active.pop(str(run_id), None)
        _cancelled.discard(str(run_id))


def is_cancelled(run_id) -> bool:
    return str(run_id) in _cancelled


def lease_end():
    return timezone.now() + timedelta(seconds=settings.RUN_LEASE_SECONDS)


def renew_once() -> None:
    """Renew the leases of runs held for a while; note which are cancelled."""
    from flows.models import FlowRun

    now = time.monotonic()
    with _lock:
        due = [
            rid for rid, since in _active.items() if now - since > RENEW_AFTER_SECONDS
        ]
    if not due:
        return
    try:
        runs = FlowRun.objects.filter(pk__in=due, status=FlowRun.Status.RUNNING)
        runs.update(lease_expires_at=lease_end())
        cancelled = {
            str(pk)
            for pk in runs.filter(cancel_requested=True).values_list("pk", flat=True)
        }
    finally:
        # No idle connection left behind by a thread that mostly sleeps.
        connection.close()
    with _lock:
        _cancelled.update(cancelled & set(_active))


def _renew_forever() -> None:
    while True:
        time.sleep(TICK_SECONDS)
        try:
            deferred.store_due()  # first: a run stored now is renewed later
        except Exception:  # noqa: BLE001 - storing must not stop the renewals
            logger.warning("Storing lasting runs failed; retrying", exc_info=True)
        finally:
            connection.close()  # no idle connection left by a sleeping thread
        try:
            renew_once()
        except Exception:  # noqa: BLE001 - the renewer must survive an outage
            logger.warning("Lease renewal failed; retrying", exc_info=True)
