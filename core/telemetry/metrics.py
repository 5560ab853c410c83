"""Prometheus metrics: what each app counts, and how `/metrics` exports it.

Apps define their own metrics with prometheus-client (`flows/metrics.py`,
`agents/metrics.py`, `webhooks/metrics.py`); django-prometheus's middleware
counts requests by view and status. This module holds what they share:

- `register_scrape_collector`: a collector computed when `/metrics` is read
  (the queue depth is a query, not a counter), registered from an app's
  `ready()` so this bottom layer never imports an app;
- `exposition`: the text format of every metric of every process. Under
  gunicorn each worker is its own process with its own counters: with
  `PROMETHEUS_MULTIPROC_DIR` set (before the first import of
  prometheus_client, so in the environment that starts gunicorn), the
  counters live in files there and are summed at scrape time
  (docs/operations.md, "Metrics"). A dead process's live gauges (the
  sandbox pool size) are dropped at scrape time, whatever server ran it:
  gunicorn's `child_exit` hook does it too, granian has no such hook.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

_scrape_collectors: list[Collector] = []


def register_scrape_collector(collector: Collector) -> None:
    if collector not in _scrape_collectors:
        _scrape_collectors.append(collector)


def exposition() -> tuple[bytes, str]:
    """(body, content type) of every metric, all processes summed."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        forget_dead_processes(Path(os.environ["PROMETHEUS_MULTIPROC_DIR"]))
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    for collector in _scrape_collectors:
        registry.register(collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST


LIVE_GAUGE_FILE = re.compile(r"gauge_live\w*?_(\d+)\.db")


def forget_dead_processes(directory: Path) -> None:
    """Drop the live gauges of processes that no longer exist (a worker that
    was restarted or crashed), so they stop counting."""
    for path in directory.glob("gauge_live*.db"):
        found = LIVE_GAUGE_FILE.fullmatch(path.name)
        if found and not _alive(int(found.group(1))):
            multiprocess.mark_process_dead(int(found.group(1)), str(directory))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


class _Everything(Collector):
    """The process's default registry, re-exported beside the scrape collectors."""

    def collect(self):
        return REGISTRY.collect()
