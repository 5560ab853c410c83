"""The sandbox pool's metrics: live worker processes and restarts."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

SANDBOX_WORKERS = Gauge(
    "weir_sandbox_workers",
    "Live JavaScript sandbox processes.",
    multiprocess_mode="livesum",
)
SANDBOX_RESTARTS = Counter(
    "weir_sandbox_worker_restarts",
    "Sandbox processes killed and replaced (timeout, crash, died while idle).",
)
