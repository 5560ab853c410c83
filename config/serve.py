"""`python -m config.serve`: the production web server, granian, sized by settings.

`WEB_BIND` (default `127.0.0.1:8000`), `WEB_WORKERS` (processes, default 2)
and `WEB_THREADS` (threads per process that run Django, default 4; the
admission caps derive from it) size it. One event loop per process reads
requests whole (config/asgi.py); SIGHUP replaces the workers one by one
without dropping connections (graceful restart), SIGTERM stops after the
requests in hand. With `PROMETHEUS_MULTIPROC_DIR` set, the directory is
emptied here, before any worker starts (docs/operations.md, "Metrics").
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import environ
from granian.constants import Interfaces
from granian.server import Server


def main() -> None:
    # The same .env the settings read (real environment variables win), so
    # WEB_* set there size the server too.
    default_env_file = Path(__file__).resolve().parents[1] / ".env"
    environ.Env.read_env(os.environ.get("WEIR_ENV_FILE", str(default_env_file)))
    host, _, port = os.environ.get("WEB_BIND", "127.0.0.1:8000").rpartition(":")
    os.environ.setdefault("WEB_THREADS", "4")
    metrics_dir = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if metrics_dir:
        shutil.rmtree(metrics_dir, ignore_errors=True)
        Path(metrics_dir).mkdir(parents=True)
    Server(
        "config.asgi:application",
        address=host or "127.0.0.1",
        port=int(port),
        interface=Interfaces.ASGI,
        workers=int(os.environ.get("WEB_WORKERS", "2")),
        # The event loop's own thread; Django runs on the bridge's WEB_THREADS.
        blocking_threads=1,
        respawn_failed_workers=True,
        # On SIGHUP a new worker starts, and the old one stops this much later:
        # time for the new one to import Django and listen (seconds on a busy
        # machine), so no connection finds nobody listening.
        respawn_interval=float(os.environ.get("WEB_RESPAWN_SECONDS", "15")),
        # Stop a worker that ignores SIGTERM (a run past every timeout).
        workers_kill_timeout=int(os.environ.get("WEB_KILL_TIMEOUT_SECONDS", "60")),
        websockets=False,
        log_access=os.environ.get("WEB_ACCESS_LOG", "") == "true",
    ).serve()


if __name__ == "__main__":
    main()
