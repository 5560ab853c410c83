"""gunicorn settings for production: `gunicorn -c config/gunicorn_conf.py config.wsgi`.

With PROMETHEUS_MULTIPROC_DIR set, each worker keeps its metrics in files
there; when a worker exits, its live gauges (the sandbox pool size) must stop
counting, which `child_exit` tells prometheus-client. The directory must be
empty when gunicorn starts (docs/operations.md, "Metrics").
"""

import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
workers = int(os.environ.get("GUNICORN_WORKERS", "2"))
threads = int(os.environ.get("GUNICORN_THREADS", "4"))
# Stamps when each request started waiting for a thread (admission control).
worker_class = "config.gunicorn.QueueStampingWorker"


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
