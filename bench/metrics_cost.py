"""What counting costs a webhook: CPU per webhook with metrics on and off.

Run with `make bench-metrics` (twice: plain, and with PROMETHEUS_MULTIPROC_DIR as
under gunicorn). It drives `POST /api/webhooks/:id` (webhook -> code node)
through Django's full middleware stack in process, on a throw-away in-memory
SQLite database, and measures the web process's CPU time (`time.process_time`,
so the sandbox process and the database server are not counted: the share it
reports is an upper bound of the share of the whole webhook's CPU).

- "on": the settings as shipped (the request metrics middleware, the run,
  node and webhook metrics).
- "off": that middleware removed and every metric call a no-op.

Rounds alternate on/off so machine load hits both alike. It also times the
metric operations of one webhook alone (no request around them), which load
barely disturbs.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")
os.environ["DATABASE_URL"] = "sqlite://:memory:"
if os.environ.get("MULTIPROC") == "1":
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="weir-metrics-")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, override_settings  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402

from flows import metrics as flow_metrics  # noqa: E402
from flows.demo import webhook_code_graph  # noqa: E402
from flows.models import Flow  # noqa: E402
from webhooks import metrics as webhook_metrics  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "10"))
PER_ROUND = int(os.environ.get("PER_ROUND", "200"))
BODY = b'{"name": "Ada", "items": [1, 2, 3]}'


class NoMetric:
    def labels(self, *args, **kwargs):
        return self

    def inc(self, *args):
        pass

    def observe(self, *args):
        pass


def metrics_off():
    """Every metric the webhook path touches is a no-op; no prometheus middleware."""
    middleware = [m for m in settings.MIDDLEWARE if "RequestMetrics" not in m]
    patches = [
        override_settings(MIDDLEWARE=middleware),
        mock.patch.object(webhook_metrics, "WEBHOOK_LATENCY", NoMetric()),
    ]
    for name in ("RUNS_STARTED", "RUNS_FINISHED", "RUN_DURATION", "NODE_DURATION"):
        patches.append(mock.patch.object(flow_metrics, name, NoMetric()))
    return patches


def cpu_per_webhook(client: Client, path: str) -> float:
    started = time.process_time()
    for _ in range(PER_ROUND):
        response = client.post(path, BODY, content_type="application/json")
        assert response.status_code == 200, response.content
    return (time.process_time() - started) / PER_ROUND * 1000


def metric_operations_alone(n: int = 20000) -> float:
    """µs for one webhook's metric operations: 2 request metrics, 5 of ours."""
    from django_prometheus.middleware import Metrics

    m = Metrics.get_instance()
    started = time.process_time()
    for _ in range(n):
        m.responses_by_status_view_method.labels(
            status="200", view="webhooks:receive", method="POST"
        ).inc()
        m.requests_latency_by_view_method.labels(
            view="webhooks:receive", method="POST"
        ).observe(0.003)
        flow_metrics.run_started("webhook")
        flow_metrics.run_finished(
            "webhook", "succeeded", 2.0, [{"node_type": "code", "duration_ms": 0.5}]
        )
        webhook_metrics.WEBHOOK_LATENCY.labels("200").observe(0.003)
    return (time.process_time() - started) / n * 1e6


def main() -> None:
    setup_test_environment()
    connection.creation.create_test_db(verbosity=0)
    settings.WEBHOOK_RATE_LIMIT = "1000000/min"
    from django.contrib.auth import get_user_model

    owner = get_user_model().objects.create_user("bench", password="x")
    nodes, edges = webhook_code_graph()
    flow = Flow.objects.create(created_by=owner, name="bench", nodes=nodes, edges=edges)
    path = flow.webhook_path

    on_times, off_times = [], []
    for _ in range(ROUNDS):
        on_times.append(cpu_per_webhook(Client(), path))
        patches = metrics_off()
        for patch in patches:
            patch.__enter__()
        try:
            off_times.append(cpu_per_webhook(Client(), path))
        finally:
            for patch in reversed(patches):
                patch.__exit__(None, None, None)

    on, off = statistics.median(on_times), statistics.median(off_times)
    alone = metric_operations_alone()
    mode = "multi-process" if os.environ.get("PROMETHEUS_MULTIPROC_DIR") else "single"
    print(
        f"mode: {mode}; {ROUNDS} rounds x {PER_ROUND} webhooks; load {os.getloadavg()}"
    )
    print("| case | median CPU ms per webhook | best |")
    print("|---|---|---|")
    print(f"| metrics on | {on:.3f} | {min(on_times):.3f} |")
    print(f"| metrics off | {off:.3f} | {min(off_times):.3f} |")
    print(f"| difference | {on - off:.3f} ({(on - off) / off * 100:.1f}%) | |")
    print(
        f"| one webhook's 7 metric operations alone | {alone / 1000:.4f} "
        f"({alone / 1000 / off * 100:.1f}% of 'off') | |"
    )


if __name__ == "__main__":
    main()
