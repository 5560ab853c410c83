"""Real gunicorn servers on the test database: fixture `gunicorn`.

Admission control and idempotency are about what a real server does with its
threads, its queue and other processes; Django's test client and live server
show none of that. `gunicorn(threads=8, SYNC_RUNS_PER_FLOW="2")` starts
`config.gunicorn.QueueStampingWorker` on a free port (bound by gunicorn
itself), with the given settings as environment variables, against the
database the test uses (so the test needs `transactional_db` to share rows).
Every server started is stopped after the test.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[1]
LISTENING = re.compile(rb"Listening at: http://127\.0\.0\.1:(\d+)")
# A CSRF secret: the cookie and the header carrying the same 32 characters pass
# Django's check, so a test needs no round trip to get a token.
CSRF_TOKEN = "a" * 32


def database_url() -> str:
    """The test database as a DATABASE_URL another process can open."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":  # a file on SQLite (tests/conftest.py)
        return f"sqlite:///{db['NAME']}"
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


@dataclass
class Answer:
    status: int
    headers: dict
    body: bytes
    seconds: float

    def json(self):
        return json.loads(self.body)


class Server:
    def __init__(self, threads: int, workers: int, env: dict[str, str]):
        log, self.log_path = tempfile.mkstemp(prefix="weir-gunicorn-")
        command = [
            sys.executable,
            "-m",
            "gunicorn",
            "config.wsgi",
            "--bind",
            "127.0.0.1:0",
            "--workers",
            str(workers),
            "--threads",
            str(threads),
            "--worker-class",
            "config.gunicorn.QueueStampingWorker",
            "--graceful-timeout",
            "2",
        ]
        self.process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={
                **os.environ,
                "DATABASE_URL": database_url(),
                "WEIR_TESTING": "1",
                "WEIR_ENV_FILE": "/dev/null",
                "DEBUG": "false",
                **env,
            },
            stdout=log,
            stderr=log,
        )
        os.close(log)  # the server has its own copy
        self.port = self._wait_until_listening()

    def _wait_until_listening(self) -> int:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            found = LISTENING.search(Path(self.log_path).read_bytes())
            if found and self._answers(int(found.group(1))):
                return int(found.group(1))
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(Path(self.log_path).read_text())

    @staticmethod
    def _answers(port: int) -> bool:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            conn.request("GET", "/login/")
            return conn.getresponse().status == 200
        except OSError:
            return False

    def request(self, method, path, body=b"", headers=None, timeout=30) -> Answer:
        started = time.monotonic()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            data = response.read()
            return Answer(
                response.status,
                {name.lower(): value for name, value in response.getheaders()},
                data,
                time.monotonic() - started,
            )
        finally:
            conn.close()

    def post_json(self, path, payload, headers=None) -> Answer:
        body = json.dumps(payload).encode()
        return self.request(
            "POST", path, body, {"Content-Type": "application/json", **(headers or {})}
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        os.unlink(self.log_path)


def session_headers(user) -> dict[str, str]:
    """Headers of `user`'s signed-in browser: session cookie and CSRF token."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    session = client.cookies["sessionid"].value
    return {
        "Cookie": f"sessionid={session}; csrftoken={CSRF_TOKEN}",
        "X-CSRFToken": CSRF_TOKEN,
    }


@pytest.fixture
def gunicorn(transactional_db):
    servers: list[Server] = []

    def start(*, threads: int = 8, workers: int = 1, **env) -> Server:
        server = Server(threads, workers, {k: str(v) for k, v in env.items()})
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()
