"""/api/mcp: what the MCP layer adds to listing and running a flow.

Run with `DATABASE_URL=postgres://.../scratch WEIR_TESTING=1 .venv/bin/python
bench/mcp_api.py` (a scratch database: it migrates it and creates a user and a
flow). Prints a markdown table; the committed results are in bench/README.md.

Paired, interleaved rounds through Django's test client (one process, no
network): `tools/list` and `tools/call` as JSON-RPC POSTs to /api/mcp (DRF's
session check, the SDK's transport and server on a fresh event loop, the
flow's run), against the same flow run directly with `run_flow` and a plain
`Flow` query. Wall time and this process's CPU per request.
"""

from __future__ import annotations

import os
import sys
import time
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
from django.test import Client  # noqa: E402

from flows.demo import webhook_code_graph  # noqa: E402
from flows.engine import run_flow  # noqa: E402
from flows.models import Flow  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "40"))
HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}


def timed(work):
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    return time.perf_counter() - wall, time.process_time() - cpu


def rpc(client: Client, method: str, params: dict | None = None):
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}}
    answer = client.post("/api/mcp", body, content_type="application/json", **HEADERS)
    assert answer.status_code == 200, answer.content
    assert "error" not in answer.json(), answer.content


def main() -> None:
    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["testserver"]
    user, _ = get_user_model().objects.get_or_create(username="bench-mcp")
    nodes, edges = webhook_code_graph("return {hello: input.name};")
    flow, _ = Flow.objects.get_or_create(
        created_by=user,
        name="Say hello",
        defaults={
            "nodes": nodes,
            "edges": edges,
            "input_schema": {"type": "object", "properties": {"name": {}}},
        },
    )
    client = Client()
    client.force_login(user)
    args = {"name": "say_hello", "arguments": {"name": "Ada"}}
    measures = {
        "tools/list via /api/mcp": lambda: rpc(client, "tools/list"),
        "flows query (direct)": lambda: list(Flow.objects.filter(created_by=user)),
        "tools/call via /api/mcp": lambda: rpc(client, "tools/call", args),
        "run_flow (direct)": lambda: run_flow(flow, {"name": "Ada"}, "manual"),
    }
    for work in measures.values():
        work()  # warm
    results = {name: ([], []) for name in measures}
    for _ in range(ROUNDS):
        for name, work in measures.items():
            wall, cpu = timed(work)
            results[name][0].append(wall)
            results[name][1].append(cpu)

    def ms(values, q=50):
        values = sorted(values)
        return values[min(len(values) - 1, int(len(values) * q / 100))] * 1000

    print(f"{ROUNDS} rounds, load average {os.getloadavg()[0]:.1f}\n")
    print("| measure | wall p50 ms | wall p95 ms | CPU p50 ms |")
    print("|---|---|---|---|")
    for name, (wall, cpu) in results.items():
        print(f"| {name} | {ms(wall):.1f} | {ms(wall, 95):.1f} | {ms(cpu):.1f} |")


if __name__ == "__main__":
    main()
