"""The default setup (SQLite) under concurrent writers: no 5xx, ever.

A real server (gunicorn, threads and processes) on a file SQLite database, the
shipped settings, and sixteen threads writing at once: before IMMEDIATE
transactions, WAL and a busy timeout, some of them got 500 `database is locked`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings

from tests.waiting import wait_until

pytestmark = pytest.mark.processes


WRITERS = 16
EDITS = 5


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def request(base, method, path, session, csrf, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Cookie", f"sessionid={session}; csrftoken={csrf}")
    req.add_header("X-CSRFToken", csrf)
    req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def sqlite_server(tmp_path):
    port = free_port()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "DATABASE_URL": f"sqlite:///{tmp_path / 'weir.sqlite3'}",
        "WEIR_TESTING": "1",
        "WEIR_ENV_FILE": str(tmp_path / "none.env"),
        "BASE_URL": f"http://127.0.0.1:{port}",
    }
    manage = [sys.executable, str(settings.BASE_DIR / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput", "-v0"], env=env, check=True)
    setup = (
        "from django.test import Client; from django.contrib.auth.models import User;"
        " from flows.models import Flow;"
        " u = User.objects.create_user('alice', password='pw');"
        " ids = [str(Flow.objects.create(created_by=u, name='f').id)"
        f" for _ in range({WRITERS + 1})];"
        " c = Client(); c.force_login(u); import json;"
        " print(json.dumps({'session': c.cookies['sessionid'].value, 'flows': ids}))"
    )
    made = subprocess.run(
        [*manage, "shell", "-c", setup], env=env, check=True, capture_output=True
    )
    state = json.loads(made.stdout.decode().strip().splitlines()[-1])
    gunicorn = Path(sys.executable).with_name("gunicorn")
    server = subprocess.Popen(
        [
            str(gunicorn),
            "config.wsgi",
            "--bind",
            f"127.0.0.1:{port}",
            "--workers",
            "2",
            "--threads",
            "8",
            "--log-level",
            "warning",
            "--no-control-socket",  # one path per machine: see tests/processes.py
        ],
        env=env,
        cwd=settings.BASE_DIR,
    )
    base = f"http://127.0.0.1:{port}"
    wait_until(lambda: listening(port), 20, 0.1)
    yield base, state
    server.send_signal(signal.SIGINT)  # gunicorn's quick shutdown
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def test_sixteen_concurrent_writers_get_no_server_errors(sqlite_server):
    base, state = sqlite_server
    session, csrf = state["session"], "c" * 32
    statuses: list[int] = []
    lock = threading.Lock()

    def writer(index: int):
        shared, own = state["flows"][0], state["flows"][index + 1]
        for edit in range(EDITS):
            for flow_id in (shared, own):
                status, _ = request(
                    base,
                    "PATCH",
                    f"/api/flows/{flow_id}",
                    session,
                    csrf,
                    {"name": f"writer {index} edit {edit}"},
                )
                with lock:
                    statuses.append(status)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(WRITERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(statuses) == WRITERS * EDITS * 2
    assert sorted(set(statuses)) == [200]
    status, body = request(
        base, "GET", f"/api/flows/{state['flows'][0]}", session, csrf
    )
    assert status == 200
    assert json.loads(body)["version"] == 1 + WRITERS * EDITS
