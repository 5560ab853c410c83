"""Instructions per request in the web process, counted by callgrind.

Wall and CPU time swing with the neighbours on a shared 2-core machine;
callgrind's instruction counts do not (the same total twice, whatever else
runs). This drives Django's WSGI handler in process (no gunicorn, no HTTP), for
the webhook -> code flow of `make bench-webhook` and for the bare view, once
with no measured requests and once with `N`, and prints the difference divided
by `N`: instructions per request. Only the web process is counted: the sandbox
processes and PostgreSQL run outside valgrind.

Needs valgrind and the database `make bench-webhook` leaves (`BENCH_DB`,
default `weir_bench_webhook`, on `PG_URL`), and Redis (`BENCH_REDIS_URL`,
default 6379 db 15) as that benchmark.

    .venv/bin/python bench/instructions.py          # or: make bench-instructions
    N=200 ROOT=/path/to/another/checkout .venv/bin/python bench/instructions.py
"""

from __future__ import annotations

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
PREFER_ASYNC = os.environ.get("PREFER_ASYNC") == "1"
WARM_UP = 20  # imports, caches, sandbox workers started: not measured apart
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
    "REDIS_URL": os.environ.get("BENCH_REDIS_URL", "redis://127.0.0.1:6379/15"),
    "PYTHONHASHSEED": "0",
}


def caller(path: str):
    """Set Django up in this process; return a function that sends one request
    to `path` ("webhook": the benchmark's flow) through the WSGI handler."""
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
        if PREFER_ASYNC:  # the 202 webhook: its run queued, no worker running
            environ["HTTP_PREFER"] = "respond-async"
        status = []
        body = app(environ, lambda line, headers, exc=None: status.append(line))
        b"".join(body)
        body.close()
        if not status[0].startswith("2"):
            raise SystemExit(f"{path} answered {status[0]}")

    return call


def serve(path: str, count: int) -> None:
    """The measured process: warm up, then `count` requests to `path`."""
    call = caller(path)
    for _ in range(WARM_UP + count):
        call()


def instructions(path: str, count: int) -> int:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "callgrind.out"
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
            + [sys.executable, __file__, "serve", path, str(count)],
            env={**os.environ, **ENV},
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        match = re.search(r"Collected : (\d+)", done.stderr)
        if done.returncode or not match:
            raise SystemExit(done.stderr[-2000:])
        return int(match[1])


def main() -> None:
    print(f"{ROOT}: instructions per request in the web process, N={N}")
    print("\n| endpoint | instructions per request |\n|---|---|")
    for name in ("webhook", "/bench/bare"):
        per_request = (instructions(name, N) - instructions(name, 0)) / N
        print(f"| {name} | {per_request / 1e6:.2f} M |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["serve"]:
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        main()
