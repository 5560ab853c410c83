"""The webhook's latency, from the view's first check to its answer, by status."""

from __future__ import annotations

import functools
import time

from prometheus_client import Histogram

WEBHOOK_LATENCY = Histogram(
    "weir_webhook_duration_seconds",
    "Time to answer POST /api/webhooks/:flowId, by HTTP status.",
    ["status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)


@functools.cache
def _latency_of(status: int):
    """The histogram's child for one status, looked up once: `labels()` takes a
    lock and checks its arguments on every call. Bounded: HTTP statuses."""
    return WEBHOOK_LATENCY.labels(str(status))


def timed(view):
    """Observe each call of `view`; a refusal raised as an ApiError counts too."""

    @functools.wraps(view)
    def wrapper(request, *args, **kwargs):
        started = time.perf_counter()
        status = 500
        try:
            response = view(request, *args, **kwargs)
            status = response.status_code
            return response
        except Exception as error:
            status = getattr(error, "status_code", 500)
            raise
        finally:
            _latency_of(status).observe(time.perf_counter() - started)

    return wrapper
