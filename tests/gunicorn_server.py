"""Real web servers on the test database: fixtures `gunicorn` and `granian`.

Admission control and idempotency are about what a real server does with its
threads, its queue and other processes; Django's test client and live server
show none of that. `gunicorn(threads=8, SYNC_RUNS_PER_FLOW="2")` starts
`config.gunicorn.QueueStampingWorker` on a free port (bound by gunicorn
itself); `granian(threads=8)` starts `python -m config.serve`, the default
server (on a port picked free just before: its workers each bind it). Both
take settings as environment variables and use the database the test uses
(so the test needs `transactional_db` to share rows). Every server started
is stopped after the test.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.db import connection

from tests.waiting import wait_until

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


def gunicorn_command(threads: int, workers: int) -> tuple[list[str], dict]:
    command = [sys.executable, "-m", "gunicorn", "config.wsgi"]
    command += ["--bind", "127.0.0.1:0", "--workers", str(workers)]
    command += ["--threads", str(threads), "--graceful-timeout", "2"]
    command += ["--worker-class", "config.gunicorn.QueueStampingWorker"]
    # Its control socket is one path per machine (~/.gunicorn/gunicorn.ctl):
    # servers of parallel pytest-xdist workers would share it.
    command += ["--no-control-socket"]
    return command, {}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def granian_command(
    threads: int, workers: int, port: int | None = None
) -> tuple[list[str], dict]:
    port = port or free_port()
    env = {"WEB_BIND": f"127.0.0.1:{port}", "WEB_WORKERS": str(workers)}
    env |= {"WEB_THREADS": str(threads), "WEB_KILL_TIMEOUT_SECONDS": "2"}
    return [sys.executable, "-m", "config.serve"], env


class Server:
    def __init__(self, threads: int, workers: int, env: dict[str, str], kind=None):
        log, self.log_path = tempfile.mkstemp(prefix="weir-server-")
        command, server_env = (kind or gunicorn_command)(threads, workers)
        env = {**server_env, **env}
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
        """The port, once the server answers; a loaded machine may take a
        minute to start its workers (the same 90 s as tests/processes.py)."""

        def port():
            found = LISTENING.search(Path(self.log_path).read_bytes())
            if found and self._answers(int(found.group(1))):
                return int(found.group(1))
            return None if self.process.poll() is None else -1

        answer = wait_until(port, 90, 0.1)
        if answer and answer > 0:
            return answer
        output = Path(self.log_path).read_text()  # before stop() removes it
        self.stop()
        raise RuntimeError(output or "gunicorn did not start within 90 s")

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


def _servers(kind):
    servers: list[Server] = []

    def start(*, threads: int = 8, workers: int = 1, **env) -> Server:
        env = {k: str(v) for k, v in env.items()}
        server = Server(threads, workers, env, kind)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def gunicorn(transactional_db):
    yield from _servers(gunicorn_command)


@pytest.fixture
def granian(transactional_db):
    yield from _servers(granian_command)


@pytest.fixture(params=["granian", "gunicorn"])
def web_server(request, transactional_db):
    """Each test once per supported server: the default and gunicorn."""
    kind = {"granian": granian_command, "gunicorn": gunicorn_command}[request.param]
    yield from _servers(kind)
