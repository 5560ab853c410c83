"""The supervisor: finds runs that no process is executing any more and ends them.

A run lives inside a web request or a worker; when that process dies (kill -9,
a crash, a lost machine) its row would stay `running` forever. `recover()` is
one pass over such runs; `manage.py supervise` calls it once at start and then
every `SUPERVISE_INTERVAL_SECONDS`. A pass is idempotent and safe to run from
several machines at once: each run is ended by one conditional UPDATE.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings

from flows.models import FlowRun

# A run cannot still be going this long after its time limit.
MARGIN_SECONDS = 60


def recover() -> int:
    """End the runs a dead process left `queued` or `running`; returns how many."""
    older_than = timedelta(seconds=settings.RUN_TIMEOUT_SECONDS + MARGIN_SECONDS)
    return FlowRun.objects.stale(older_than).mark_interrupted()
