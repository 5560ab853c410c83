"""Prometheus metrics: what each app counts, and how `/metrics` exports it.

Apps define their own metrics with prometheus-client (`flows/lib/metrics.py`,
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
  (docs/operations.md, "Metrics").
"""

from __future__ import annotations

import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
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
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
    else:
        registry = CollectorRegistry()
        registry.register(_Everything())
    for collector in _scrape_collectors:
        registry.register(collector)
    return generate_latest(registry), CONTENT_TYPE_LATEST


class _Everything(Collector):
    """The process's default registry, re-exported beside the scrape collectors."""

    def collect(self):
        return REGISTRY.collect()
