"""The engine's metrics: runs, node durations, the queue (the sandbox pool's
are in sandbox/metrics.py).

Counted where the work happens (the run store, the sandbox pool), never
logged: an increment costs about a microsecond, a log line far more.
Labels are bounded sets (triggers, statuses, node types), never ids.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from django.utils import timezone
from prometheus_client import Counter, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

# Runs take milliseconds to the run time limit (30 s by default).
RUN_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

RUNS_STARTED = Counter("weir_runs_started", "Runs started.", ["trigger"])
RUNS_FINISHED = Counter(
    "weir_runs_finished", "Runs that ended, by final status.", ["trigger", "status"]
)
RUN_DURATION = Histogram(
    "weir_run_duration_seconds",
    "Wall time of finished runs.",
    ["trigger"],
    buckets=RUN_BUCKETS,
)
NODE_DURATION = Histogram(
    "weir_node_duration_seconds",
    "Wall time of executed nodes.",
    ["type"],
    buckets=RUN_BUCKETS,
)
SCHEDULE_ERRORS = Counter(
    "weir_schedule_errors",
    "Scheduler looks at a flow that failed (a bad stored schedule, a bug).",
)


SCHEDULES_SKIPPED = Counter(
    "weir_schedules_skipped",
    "Schedule ticks not run because the flow's owner account is deactivated.",
)


def schedule_error() -> None:
    SCHEDULE_ERRORS.inc()


def schedule_skipped() -> None:
    SCHEDULES_SKIPPED.inc()


def run_started(trigger: str) -> None:
    _child(RUNS_STARTED, trigger).inc()


def run_finished(trigger: str, status: str, duration_ms: float, steps) -> None:
    _child(RUNS_FINISHED, trigger, status).inc()
    _child(RUN_DURATION, trigger).observe(duration_ms / 1000)
    nodes_ran(steps)


def nodes_ran(steps) -> None:
    """Observe each step row that has a duration (skipped nodes have none)."""
    for step in steps:
        if step.get("duration_ms") is not None:
            _child(NODE_DURATION, step["node_type"]).observe(step["duration_ms"] / 1000)


@functools.cache
def _child(metric, *labels: str):
    """`metric.labels(*labels)`, looked up once: the same child every time,
    without prometheus_client's checks and lock on every run. Bounded, as the
    label values are."""
    return metric.labels(*labels)


class QueueCollector(Collector):
    """Queue depth and the age of the oldest queued run, read at scrape time.

    Two queries per scrape on run_status_idx; gauges set by the worker would go
    stale when it stops, which is when they matter. `queued` returns the
    queued runs' QuerySet (given by FlowsConfig: the pool imports this module,
    and the models must not be imported back from here).
    """

    def __init__(self, queued: Callable):
        self.queued = queued

    def collect(self):
        queued = self.queued()
        depth = GaugeMetricFamily("weir_runs_queued", "Runs waiting for a worker.")
        depth.add_metric([], queued.count())
        oldest = queued.order_by("created_at").values_list("created_at", flat=True)
        first = oldest.first()
        age = GaugeMetricFamily(
            "weir_oldest_queued_run_age_seconds",
            "Age of the oldest queued run (0 when none waits).",
        )
        age.add_metric([], (timezone.now() - first).total_seconds() if first else 0)
        yield depth
        yield age
