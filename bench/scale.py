"""Scale-out: "respond immediately" webhooks on 2 web + 2 worker processes.

`make bench-scale` (or `.venv/bin/python bench/scale.py`), against PostgreSQL:

1. a fresh database `weir_bench_scale` (`PG_URL`), a user and two webhook ->
   code node flows answering 202 at once (`webhook_response_mode=immediately`);
   two web processes on two ports (granian via `config.serve`, 1 process x 4
   threads each,
   `bench.bench_settings`, which adds the bare Django view), 2 `manage.py
   work` processes, and Node-RED
   installed from npm (bench/nodered.py) with the same function;
2. accept rate, side by side in one run: wrk (c=`CONNECTIONS` in all, `DURATION`
   s after a warm-up) against the bare view, Node-RED, and Weir's async webhook,
   once with the workers executing the runs meanwhile and once with them paused
   (SIGSTOP: the web tier alone, as when workers run on other machines); the
   two web ports get one wrk each with half the connections, summed;
3. a burst of exactly `BURST` (10,000) webhook calls to the second flow from
   `CLIENTS` threads spread over both ports, each 202's `run_id` recorded;
   then the workers drain the queue, and the runs are counted one by one:
   every 202 names a run that exists once and succeeded with each node run
   once, no run exists that no 202 named, none is left queued or running.

Prints a markdown table and the load average; bench/README.md has the results.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import nodered  # noqa: E402

PY = sys.executable
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432")
DB = os.environ.get("BENCH_DB", "weir_bench_scale")
BURST = int(os.environ.get("BURST", "10000"))
CLIENTS = int(os.environ.get("CLIENTS", "16"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))
DURATION = int(os.environ.get("DURATION", "10"))
DRAIN_TIMEOUT = float(os.environ.get("DRAIN_TIMEOUT", "900"))
BODY = b'{"name": "Ada", "items": [1, 2, 3]}'
CODE = "return {greeting: 'hi ' + input.name, n: input.items.length};"

ENV = {
    **os.environ,
    "DATABASE_URL": f"{PG_URL}/{DB}",
    "DJANGO_SETTINGS_MODULE": "bench.bench_settings",
    "PYTHONPATH": str(ROOT),
    "DEBUG": "false",
    "WEIR_TESTING": "0",
    "WEIR_ENV_FILE": "/dev/null",
    "SECRET_KEY": "bench-" + "k" * 60,
    "CREDENTIALS_KEY": "YmVuY2gta2V5LWJlbmNoLWtleS1iZW5jaC1rZXktMDE=",
    "ALLOWED_HOSTS": "127.0.0.1",
    "REDIS_URL": "",
    "WEBHOOK_RATE_LIMIT": "100000000/min",
    # The burst queues far more than the default cap of 100 runs a workspace
    # may have waiting (QUEUED_RUNS_PER_OWNER): lifted, as bench/webhook.sh
    # does, so the phases measure accepting runs, not answering 429s.
    "QUEUED_RUNS_PER_OWNER": "100000000",
    "LOG_LEVEL": "WARNING",
}

SETUP = f"""
import django; django.setup()
from django.contrib.auth import get_user_model
from flows.demo import webhook_code_graph
from flows.models import Flow
user = get_user_model().objects.create_user("bench", password="x")
for name in ("rate", "burst"):
    nodes, edges = webhook_code_graph({CODE!r})
    flow = Flow.objects.create(created_by=user, name=name, nodes=nodes, edges=edges,
                               webhook_response_mode="immediately")
    print(flow.id)
"""


def sh(*args: str) -> str:
    return subprocess.run(
        args, cwd=ROOT, env=ENV, check=True, capture_output=True, text=True
    ).stdout


def sql(query: str) -> str:
    return sh("psql", f"{PG_URL}/{DB}", "-qtAc", query).strip()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port: int) -> None:
    for _ in range(300):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"nothing answers on port {port}")


def wrk(*urls: str) -> dict:
    """One wrk phase after a 3 s warm-up, CONNECTIONS split over `urls` (one
    wrk each, run together): req/s and non-2xx summed, the worst p50 and p99."""
    script = str(ROOT / "bench" / "webhook_post.lua")
    conns = max(1, CONNECTIONS // len(urls))
    base = ["wrk", f"-t{max(1, 2 // len(urls))}", f"-c{conns}", "--timeout", "10s"]
    base += ["-s", script]

    def phase(seconds: int) -> list[str]:
        running = [
            subprocess.Popen(
                [*base, f"-d{seconds}s", url], stdout=subprocess.PIPE, text=True
            )
            for url in urls
        ]
        return [process.communicate()[0] for process in running]

    phase(3)
    results = []
    for out in phase(DURATION):
        line = next(line for line in out.splitlines() if line.startswith("RESULT"))
        results.append({k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)", line)})
    return {
        "rps": sum(r["rps"] for r in results),
        "non2xx": sum(r["non2xx"] for r in results),
        "p50_ms": max(r["p50_ms"] for r in results),
        "p99_ms": max(r["p99_ms"] for r in results),
    }


def burst(ports: list[int], path: str) -> tuple[list[str], dict[int, int], list[float]]:
    """Exactly BURST POSTs from CLIENTS threads spread over `ports`: run ids of
    the 202s, counts by status, latencies (ms) of the 202s."""
    run_ids: list[str] = []
    statuses: dict[int, int] = {}
    latencies: list[float] = []
    remaining = [BURST]
    lock = threading.Lock()

    def client(port: int):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        while True:
            with lock:
                if not remaining[0]:
                    return
                remaining[0] -= 1
            started = time.perf_counter()
            try:
                conn.request("POST", path, BODY, {"Content-Type": "application/json"})
                response = conn.getresponse()
                body = response.read()
                status = response.status
            except OSError:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                status, body = 0, b""
            took = (time.perf_counter() - started) * 1000
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 202:
                    run_ids.append(json.loads(body)["run_id"])
                    latencies.append(took)

    threads = [
        threading.Thread(target=client, args=(ports[n % len(ports)],))
        for n in range(CLIENTS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return run_ids, statuses, latencies


def drain(flow_id: str) -> float:
    """Seconds until no run of the flow is queued or running."""
    started = time.monotonic()
    unfinished = f"""SELECT count(*) FROM flows_flowrun WHERE flow_id = '{flow_id}'
        AND status IN ('queued', 'running')"""
    while int(sql(unfinished)) and time.monotonic() - started < DRAIN_TIMEOUT:
        time.sleep(0.5)
    return time.monotonic() - started


def audit(flow_id: str, run_ids: list[str]) -> dict:
    """The burst's runs counted one by one against the 202s."""
    rows = sql(
        f"""SELECT r.id, r.status, count(s.id), count(DISTINCT s.node_id)
        FROM flows_flowrun r LEFT JOIN flows_runstep s ON s.run_id = r.id
        WHERE r.flow_id = '{flow_id}' GROUP BY r.id, r.status"""
    ).splitlines()
    stored = {row.split("|")[0]: row.split("|")[1:] for row in rows}
    answered = set(run_ids)
    return {
        "202s": len(run_ids),
        "distinct run ids": len(answered),
        "runs stored": len(stored),
        "lost (202 without a run)": len(answered - stored.keys()),
        "extra (run without a 202)": len(stored.keys() - answered),
        "not succeeded": sum(1 for s, _, _ in stored.values() if s != "succeeded"),
        "still queued or running": sum(
            1 for s, _, _ in stored.values() if s in ("queued", "running")
        ),
        "a node run twice": sum(1 for _, n, d in stored.values() if n != d),
    }


def main() -> None:
    admin = f"{PG_URL}/postgres"
    subprocess.run(["psql", admin, "-qc", f"DROP DATABASE IF EXISTS {DB}"], check=True)
    subprocess.run(["psql", admin, "-qc", f"CREATE DATABASE {DB}"], check=True)
    sh(PY, "manage.py", "migrate", "--noinput", "-v", "0")
    rate_flow, burst_flow = sh(PY, "-c", SETUP).split()
    ports, red_port = [free_port(), free_port()], free_port()
    webs = [
        subprocess.Popen(
            [PY, "-m", "config.serve"],  # granian, the production server
            cwd=ROOT,
            env={
                **ENV,
                "WEB_BIND": f"127.0.0.1:{port}",
                "WEB_WORKERS": "1",
                "WEB_THREADS": "4",
            },
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for port in ports
    ]
    workers = [
        subprocess.Popen(
            [PY, "manage.py", "work"],
            cwd=ROOT,
            env=ENV,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for _ in range(2)
    ]
    red = nodered.start(red_port)
    try:
        for port in ports:
            wait_for(port)
        bases = [f"http://127.0.0.1:{port}" for port in ports]
        load_before = os.getloadavg()
        rates = {
            "bare Django view": wrk(*(f"{base}/bench/bare" for base in bases)),
            f"Node-RED {red.version}": wrk(f"http://127.0.0.1:{red_port}/bench"),
            "Weir webhook, respond immediately (202)": wrk(
                *(f"{base}/api/webhooks/{rate_flow}" for base in bases)
            ),
        }
        drain(rate_flow)
        # The web tier alone, as when workers run on other machines: here they
        # share the 2 cores, so they are paused (the queue just grows).
        for worker in workers:
            worker.send_signal(signal.SIGSTOP)
        try:
            rates["Weir webhook (202), workers paused"] = wrk(
                *(f"{base}/api/webhooks/{rate_flow}" for base in bases)
            )
        finally:
            for worker in workers:
                worker.send_signal(signal.SIGCONT)
        drain(rate_flow)
        started = time.monotonic()
        run_ids, statuses, latencies = burst(ports, f"/api/webhooks/{burst_flow}")
        accepted_in = time.monotonic() - started
        drained_in = drain(burst_flow)
        counts = audit(burst_flow, run_ids)
        load_after = os.getloadavg()
    finally:
        for process in (*webs, *workers, red):
            process.terminate()
        for process in (*webs, *workers, red):
            process.wait()
    report(rates, statuses, latencies, accepted_in, drained_in, counts)
    cores = os.cpu_count()
    print(f"\nload average before {load_before}, after {load_after}; {cores} cores")


def report(rates, statuses, latencies, accepted_in, drained_in, counts) -> None:
    node_red = next(v for k, v in rates.items() if k.startswith("Node-RED"))
    bare = rates["bare Django view"]
    print(
        f"wrk, {CONNECTIONS} connections in all (split over the 2 web ports), "
        f"{DURATION} s per endpoint after 3 s warm-up"
    )
    print("\n| endpoint | req/s | p50 ms | p99 ms | non-2xx | / Node-RED | / bare |")
    print("|---|---|---|---|---|---|---|")
    for name, r in rates.items():
        print(
            f"| {name} | {r['rps']:.0f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
            f"| {r['non2xx']:.0f} | {r['rps'] / node_red['rps']:.2f} "
            f"| {r['rps'] / bare['rps']:.2f} |"
        )
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0] * 99
    print(
        f"\nBurst: {BURST} webhook calls from {CLIENTS} threads accepted in "
        f"{accepted_in:.1f} s ({BURST / accepted_in:.0f} req/s; 202 p50 "
        f"{q[49]:.1f} ms, p99 {q[98]:.1f} ms); answers by status {statuses}; "
        f"queue drained {drained_in:.1f} s after the last 202 "
        f"({counts['runs stored'] / (accepted_in + drained_in):.0f} runs/s end to end "
        "on 2 workers)."
    )
    print("\n| count | runs |\n|---|---|")
    for name, value in counts.items():
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
