"""Pruning a large run history while webhooks run: their p99 against a baseline.

`make bench-prune` (or `.venv/bin/python bench/prune.py`):

1. drops and creates the PostgreSQL database `weir_bench_prune` (`PG_URL`),
   migrates it, makes a user and a webhook -> code node flow, and inserts
   `RUNS` runs (default 1,000,000) of that flow with two steps each, spread
   over 300 days (90% older than the 30-day retention; all but the newest
   10,000 past the per-flow cap), in one `generate_series` statement each;
2. starts gunicorn (2 workers x 4 threads, production settings) on a free port;
3. drives the webhook from `CLIENTS` threads for `SECONDS` (baseline), then
   again while `manage.py prune_runs` runs (until it finishes or the phase
   ends), and prints req/s and p50/p99 of each phase, the prune's time and
   how many runs it deleted.

The client is Python threads on the same machine, so absolute figures are
lower than wrk's; the ratio of the two phases is the result.
"""

from __future__ import annotations

import http.client
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "weir_bench_prune")
RUNS = int(os.environ.get("RUNS", "1000000"))
SECONDS = float(os.environ.get("SECONDS", "20"))
CLIENTS = int(os.environ.get("CLIENTS", "8"))
BODY = b'{"name": "Ada", "items": [1, 2, 3]}'

ENV = {
    **os.environ,
    "DATABASE_URL": f"{PG_URL}/{DB}",
    "DEBUG": "false",
    "WEIR_TESTING": "0",
    "WEIR_ENV_FILE": "/dev/null",
    "SECRET_KEY": "bench-" + "k" * 60,
    "CREDENTIALS_KEY": "YmVuY2gta2V5LWJlbmNoLWtleS1iZW5jaC1rZXktMDE=",
    "WEBHOOK_RATE_LIMIT": "100000000/min",
    "LOG_LEVEL": "WARNING",
    # Latency under pruning, not admission refusals: every thread may run the flow.
    "SYNC_RUNS_PER_PROCESS": "4",
    "SYNC_RUNS_PER_OWNER": "4",
    "SYNC_RUNS_PER_FLOW": "4",
    "DJANGO_SETTINGS_MODULE": "config.settings",
}

SEED = f"""
import django; django.setup()
from django.db import connection
from django.contrib.auth import get_user_model
from flows.demo import webhook_code_graph
from flows.models import Flow
user = get_user_model().objects.create_user("bench", password="x")
nodes, edges = webhook_code_graph("return {{greeting: 'hi ' + input.name}};")
flow = Flow.objects.create(created_by=user, name="bench", nodes=nodes, edges=edges)
with connection.cursor() as c:
    c.execute('''
        INSERT INTO flows_flowrun (id, flow_id, flow_version, trigger, status, input,
            results, request_meta, created_at, started_at, finished_at, duration_ms,
            pinned, delivery_id, attempts, background, cancel_requested)
        SELECT gen_random_uuid(), %s, 1, 'webhook', 'succeeded', '{{"name": "Ada"}}',
            '{{"greet": {{"greeting": "hi Ada"}}}}', '{{}}',
            now() - (interval '300 days') * (i::float / %s) - interval '1 hour',
            now(), now(), 2.0, false, '', 1, false, false
        FROM generate_series(1, %s) AS i''', [flow.id, {RUNS}, {RUNS}])
    c.execute('''
        INSERT INTO flows_runstep (run_id, position, node_id, node_type, node_name,
            status, output, logs, duration_ms, handle, attempts)
        SELECT r.id, s.position, s.node_id, s.node_type, '', 'succeeded',
            '{{"greeting": "hi Ada"}}', '[]', 0.5, '', '[]'
        FROM flows_flowrun r,
            (VALUES (0, 'trigger', 'webhook'), (1, 'greet', 'code'))
            AS s(position, node_id, node_type)''')
    c.execute("ANALYZE")
print(flow.id)
"""


def sh(*args, **kwargs) -> str:
    return subprocess.run(
        args, cwd=ROOT, env=ENV, check=True, capture_output=True, text=True, **kwargs
    ).stdout


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def drive(port: int, path: str, seconds: float) -> tuple[list[float], int]:
    """Latencies (ms) of answered webhooks, and the count of failures."""
    latencies: list[float] = []
    failures = [0]
    stop = time.monotonic() + seconds

    def client():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while time.monotonic() < stop:
            started = time.perf_counter()
            try:
                conn.request("POST", path, BODY, {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
            except OSError:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                ok = False
            if ok:
                latencies.append((time.perf_counter() - started) * 1000)
            else:
                failures[0] += 1

    threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, failures[0]


def summary(name: str, latencies: list[float], failures: int, seconds: float) -> str:
    q = statistics.quantiles(latencies, n=100)
    return (
        f"| {name} | {len(latencies) / seconds:.0f} | {q[49]:.1f} | {q[98]:.1f} "
        f"| {failures} |"
    )


def main() -> None:
    base = f"{PG_URL}/postgres"
    subprocess.run(["psql", base, "-qc", f"DROP DATABASE IF EXISTS {DB}"], check=True)
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {DB}"], check=True)
    sh(PY, "manage.py", "migrate", "--noinput", "-v", "0")
    started = time.monotonic()
    flow_id = sh(PY, "-c", SEED).strip().splitlines()[-1]
    seeded = time.monotonic() - started
    port = free_port()
    server = subprocess.Popen(
        [
            str(ROOT / ".venv/bin/gunicorn"),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "4",
        ],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        path = f"/api/webhooks/{flow_id}"
        time.sleep(3)
        drive(port, path, 3)  # warm-up: workers, connections, sandboxes
        base_lat, base_fail = drive(port, path, SECONDS)
        prune = subprocess.Popen(
            [PY, "manage.py", "prune_runs"],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.PIPE,
            text=True,
        )
        prune_started = time.monotonic()
        prune_lat, prune_fail = drive(port, path, SECONDS)
        output, _ = prune.communicate()
        prune_seconds = time.monotonic() - prune_started
    finally:
        server.terminate()
        server.wait()
    print(
        f"{RUNS} runs ({2 * RUNS} steps) seeded in {seeded:.0f} s; "
        f"{CLIENTS} clients, {SECONDS:.0f} s phases; load {os.getloadavg()}"
    )
    print(f"prune_runs: {output.strip()} ({prune_seconds:.0f} s)")
    print("| phase | req/s | p50 ms | p99 ms | failures |")
    print("|---|---|---|---|---|")
    print(summary("baseline", base_lat, base_fail, SECONDS))
    print(summary("while pruning", prune_lat, prune_fail, SECONDS))
    p99 = statistics.quantiles(prune_lat, n=100)[98]
    p99_base = statistics.quantiles(base_lat, n=100)[98]
    print(f"p99 while pruning / baseline: {p99 / p99_base:.2f}")


if __name__ == "__main__":
    main()
