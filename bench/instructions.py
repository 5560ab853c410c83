"""Instructions per request in the web process, counted by callgrind.

Wall and CPU time swing with the neighbours on a shared 2-core machine;
callgrind's instruction counts do not (the same total twice, whatever else
runs). This drives Django's WSGI handler in process (no gunicorn, no HTTP)
for each endpoint of `make bench-webhook` in turn, in one process under
valgrind: the webhook -> code flow answered 202 (`Prefer: respond-async`, its
run left queued) and synchronously, the two floor views of bench/bench_urls.py
and the bare view. Each endpoint is warmed up, then counted over `N` requests
alone: the process calls `os.getppid()` to zero callgrind's counts and
`os.getpgrp()` to dump them (`--zero-before`, `--dump-before`), so Django's
start-up is paid once and counted never. Only the thread serving the
requests is counted (`--separate-threads`): the process's background threads
(the queue's notifier, the flow listener, the lease's ticks) work by the wall
clock, which valgrind and the load stretch, and so moved the counts by up to
0.15 M between runs of the same code; so, for the same reason, do the rate
limiter's syncs and the deferral of a run's INSERT, held off here (`serve`).
The sandbox processes and PostgreSQL run outside valgrind.

Needs valgrind and the database `make bench-webhook` leaves (`BENCH_DB`,
default `weir_bench_webhook`, on `PG_URL`), and Redis (`BENCH_REDIS_URL`,
default 6379 db 15) as that benchmark.

    .venv/bin/python bench/instructions.py          # or: make bench-instructions
    N=200 ONLY="webhook 202,floor 202" ROOT=/path/to/another/checkout \
        .venv/bin/python bench/instructions.py
"""

from __future__ import annotations

import gc
import io
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(os.environ.get("ROOT", HERE))  # the checkout to measure
N = int(os.environ.get("N", "100"))
PG_URL = os.environ.get("PG_URL", "postgres://postgres@127.0.0.1:5432")
BENCH_DB = os.environ.get("BENCH_DB", "weir_bench_webhook")
BODY = b'{"name": "Ada", "items": [1, 2, 3]}'
# bench/phases.py's default for `caller`: the 202 webhook when "1".
PREFER_ASYNC = os.environ.get("PREFER_ASYNC") == "1"
WARM_UP = 20  # imports, caches, sandbox workers started: not counted
# name: (path, answered 202); "webhook" is the benchmark's flow.
ENDPOINTS = {
    "webhook 202": ("webhook", True),
    "floor 202": ("/bench/floor-202", False),
    "webhook sync": ("webhook", False),
    "floor sync": ("/bench/floor-sync", False),
    "bare": ("/bench/bare", False),
}
ONLY = [name for name in os.environ.get("ONLY", "").split(",") if name]
ENV = {
    "DJANGO_SETTINGS_MODULE": "bench.bench_settings",
    "DATABASE_URL": f"{PG_URL}/{BENCH_DB}",
    "SECRET_KEY": "bench-" + "k" * 60,
    "WEIR_ENV_FILE": "/dev/null",
    "CREDENTIALS_KEY": "YmVuY2gta2V5LWJlbmNoLWtleS1iZW5jaC1rZXktMDE=",
    "DEBUG": "false",
    "WEIR_TESTING": "false",
    "LOG_LEVEL": "WARNING",
    "ALLOWED_HOSTS": "127.0.0.1",
    "WEBHOOK_RATE_LIMIT": "100000000/min",
    # No worker runs: every 202 leaves a queued run, as in bench/webhook.sh.
    "QUEUED_RUNS_PER_OWNER": "100000000",
    # Nor reconnects by the wall clock (bench/webhook.sh holds them too).
    "DB_CONN_MAX_AGE": "36000",
    "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
    "PYTHONHASHSEED": "0",
}


def caller(path: str, prefer_async: bool = PREFER_ASYNC):
    """Set Django up in this process; return a function that sends one request
    to `path` ("webhook": the benchmark's flow) through the WSGI handler."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.wsgi import get_wsgi_application

    from flows.models import Flow

    app = get_wsgi_application()
    if path == "webhook":
        path = f"/api/webhooks/{Flow.objects.filter(webhook_enabled=True).first().pk}"

    def call():
        environ = {
            "REQUEST_METHOD": "POST",
            "PATH_INFO": path,
            "SCRIPT_NAME": "",
            "SERVER_NAME": "127.0.0.1",
            "SERVER_PORT": "8766",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "127.0.0.1:8766",
            "CONTENT_TYPE": "application/json",
            "CONTENT_LENGTH": str(len(BODY)),
            "REMOTE_ADDR": "127.0.0.1",
            "wsgi.input": io.BytesIO(BODY),
            "wsgi.url_scheme": "http",
            "wsgi.errors": sys.stderr,
        }
        if prefer_async:  # the 202 webhook: its run queued, no worker running
            environ["HTTP_PREFER"] = "respond-async"
        status = []
        body = app(environ, lambda line, headers, exc=None: status.append(line))
        b"".join(body)
        body.close()
        if not status[0].startswith("2"):
            raise SystemExit(f"{path} answered {status[0]}")

    return call


def serve(names: list[str], count: int) -> None:
    """The measured process: per endpoint, warm up, then `count` requests
    between the two markers callgrind zeroes and dumps its counts at."""
    calls = [caller(*ENDPOINTS[name]) for name in names]
    from core.http import ratelimit_batched
    from flows.engine import deferred

    # What the request's thread does by the wall clock, which valgrind slows
    # ~50 times, and the load more: a run lasting STORE_AFTER_SECONDS is
    # inserted, then updated; the rate limiter adds its count to Redis every
    # SYNC_SECONDS (every request or two, here; every few hundred in a server).
    deferred.STORE_AFTER_SECONDS = 3600
    ratelimit_batched.SYNC_SECONDS = 3600
    for call in calls:
        for _ in range(WARM_UP):
            call()
        # As a server's process does once it has loaded (core/startup.py), so
        # a full collection walks only what the counted requests made: else
        # one falling inside an endpoint's count moved it by ~0.3 M.
        gc.collect()
        gc.freeze()
        os.getppid()  # --zero-before=getppid
        for _ in range(count):
            call()
        os.getpgrp()  # --dump-before=getpgrp


def instructions(names: list[str], count: int) -> list[int]:
    """Instructions of `count` requests to each endpoint of `names`."""
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            + ["--zero-before=getppid", "--dump-before=getpgrp"]
            + ["--separate-threads=yes"]  # the request's thread: "-01"
            + [sys.executable, __file__, "serve", str(count), *names],
            env={**os.environ, **ENV},
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        parts = [Path(f"{out}.{part}-01") for part in range(1, len(names) + 1)]
        if done.returncode or not all(part.exists() for part in parts):
            raise SystemExit(done.stderr[-2000:])
        return [
            int(re.search(r"^summary: (\d+)", part.read_text(), re.M)[1])
            for part in parts
        ]


def main() -> None:
    names = ONLY or list(ENDPOINTS)
    print(f"{ROOT}: instructions per request in the web process, N={N}")
    print("\n| endpoint | instructions per request |\n|---|---|")
    for name, total in zip(names, instructions(names, N), strict=True):
        print(f"| {name} | {total / N / 1e6:.3f} M |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[3:], int(sys.argv[2]))
    else:
        main()
