"""gunicorn's threaded worker, telling Django when each request arrived.

`gunicorn config.wsgi --worker-class config.gunicorn.QueueStampingWorker
--threads 8`. The stock gthread worker hands each ready connection to a thread
pool; when every thread is busy the request waits in the pool's queue, and
nothing in the WSGI environ says for how long. This worker stamps the moment a
connection is handed to the pool and puts it in the environ as
`weir.queued_at`, so admission control (core/http/admission.py) can refuse a
run whose caller waited past `REQUEST_QUEUE_TIMEOUT_SECONDS` instead of running
it late. It also sets `WEB_THREADS` to the real `--threads` before Django
loads, so the admission defaults follow the server's size.
"""

from __future__ import annotations

import os
import threading
import time

from gunicorn.workers.gthread import ThreadWorker

from core.http.admission import QUEUED_AT_KEY

_current = threading.local()


class QueueStampingWorker(ThreadWorker):
    def init_process(self):
        # Before the app (and so the settings) load in this process.
        os.environ["WEB_THREADS"] = str(self.cfg.threads)
        super().init_process()

    def enqueue_req(self, conn):
        # Called in the main loop when a connection is accepted or a kept-alive
        # one has data: from here the request waits for a free thread.
        conn.weir_queued_at = time.time()
        super().enqueue_req(conn)

    def handle(self, conn):
        _current.queued_at = getattr(conn, "weir_queued_at", None)
        return super().handle(conn)

    def load_wsgi(self):
        super().load_wsgi()
        app = self.wsgi

        def stamped(environ, start_response):
            # Only the first request a thread takes from the queue waited there;
            # a pipelined one served in the same turn did not.
            environ[QUEUED_AT_KEY] = _current.__dict__.pop("queued_at", None)
            return app(environ, start_response)

        self.wsgi = stamped
