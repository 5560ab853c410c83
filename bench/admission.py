"""What admission control and idempotent deliveries add to one webhook.

Run with `DATABASE_URL=postgres://... WEIR_TESTING=1 .venv/bin/python
bench/admission.py` (a scratch database: it creates a user and flows). Prints a
markdown table; the committed results are in bench/README.md.

- Taking and giving back an admission slot (`admitted()`), alone.
- A webhook through Django's test client (whole request: middleware, checks,
  run, answer) in three shapes, interleaved so machine noise hits them alike:
  no delivery id, a fresh `Idempotency-Key` each time (the INSERT claims it),
  and a repeat of a finished delivery (the stored answer, no run). With the
  SQL statements each one sends.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
import timeit
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("WEIR_TESTING", "1")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client, RequestFactory  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from core.http.admission import Slots  # noqa: E402
from flows.demo import webhook_code_graph  # noqa: E402
from flows.engine.admission import admitted  # noqa: E402
from flows.models import Flow  # noqa: E402

ROUNDS = 400


def slot_cost() -> float:
    """Microseconds to take and give back a slot (owner and flow caps)."""
    request, slots = RequestFactory().post("/api/webhooks/x"), Slots()

    def once():
        with admitted(request, owner_id=1, flow_id="f", slots=slots):
            pass

    number = 20_000
    return min(timeit.repeat(once, number=number, repeat=5)) / number * 1e6


def webhook_costs() -> dict[str, tuple[float, float, int]]:
    settings.WEBHOOK_RATE_LIMIT = "1000000/min"
    settings.ALLOWED_HOSTS = ["testserver"]
    user, _ = get_user_model().objects.get_or_create(username="bench-admission")
    nodes, edges = webhook_code_graph()
    flow = Flow.objects.create(created_by=user, name="bench", nodes=nodes, edges=edges)
    client, path, body = Client(), f"/api/webhooks/{flow.id}", b'{"name": "Ada"}'
    client.post(path, body, content_type="application/json", HTTP_IDEMPOTENCY_KEY="r")

    shapes = {
        "no delivery id": lambda: {},
        "new Idempotency-Key": lambda: {"HTTP_IDEMPOTENCY_KEY": uuid.uuid4().hex},
        "repeat (stored answer)": lambda: {"HTTP_IDEMPOTENCY_KEY": "r"},
    }
    times: dict[str, list[float]] = {name: [] for name in shapes}
    queries: dict[str, int] = {}
    for _ in range(20):  # warm up connections, the sandbox, caches
        client.post(path, body, content_type="application/json")
    for _ in range(ROUNDS):
        for name, headers in shapes.items():
            extra = headers()
            with CaptureQueriesContext(connection) as captured:
                started = time.perf_counter()
                response = client.post(
                    path, body, content_type="application/json", **extra
                )
                times[name].append((time.perf_counter() - started) * 1e6)
            assert response.status_code == 200, response.content
            queries[name] = len(captured)
    flow.delete()
    return {
        name: (statistics.median(values), statistics.mean(values), queries[name])
        for name, values in times.items()
    }


def main() -> None:
    call_command("migrate", verbosity=0)
    print(f"Database: {connection.vendor}; {ROUNDS} requests of each shape.\n")
    print(f"Admission slot, take and give back: {slot_cost():.2f} µs\n")
    print("| webhook | median µs | mean µs | SQL statements |")
    print("|---|---|---|---|")
    for name, (median, mean, count) in webhook_costs().items():
        print(f"| {name} | {median:.0f} | {mean:.0f} | {count} |")


if __name__ == "__main__":
    main()
