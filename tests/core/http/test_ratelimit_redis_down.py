"""Redis stopped or hung costs nothing but the shared limits.

Every Redis call has connect and socket timeouts of tens of milliseconds; rate
limiting fails open with a log line (webhook replays are refused by the
database's delivery ids), so webhooks
run and users sign in while Redis is away. The faults are real: a closed port,
and a Redis this test starts on a free port and freezes with SIGSTOP.
"""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import time

import pytest
from django.test import Client

from flows.models import FlowRun
from tests.factories import FlowFactory, webhook_code_graph
from tests.waiting import wait_until
from webhooks import signatures

FAST = 0.5  # seconds: a request that waited on Redis would take seconds


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def use_redis(settings, url: str) -> None:
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": settings.REDIS_CACHE_OPTIONS,
        }
    }


def answers_ping(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture
def closed_redis(settings):
    use_redis(settings, f"redis://127.0.0.1:{free_port()}/0")


@pytest.fixture
def frozen_redis(settings, tmp_path):
    """A Redis of our own, answering at first, then stopped mid-life (SIGSTOP)."""
    port = free_port()
    server = subprocess.Popen(
        [
            shutil.which("redis-server") or "redis-server",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
    )
    wait_until(lambda: answers_ping(port), 10, 0.05)
    use_redis(settings, f"redis://127.0.0.1:{port}/0")
    server.freeze = lambda: server.send_signal(signal.SIGSTOP)
    server.thaw = lambda: server.send_signal(signal.SIGCONT)
    yield server
    server.send_signal(signal.SIGCONT)
    server.terminate()
    server.wait(timeout=10)


def post_webhook(flow, body: bytes = b'{"name": "Ada"}', headers=None):
    started = time.monotonic()
    response = Client().post(
        f"/api/webhooks/{flow.id}",
        body,
        content_type="application/json",
        **(headers or {}),
    )
    return response, time.monotonic() - started


def webhook_flow(alice, **fields):
    nodes, edges = webhook_code_graph()
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges, **fields)


def signed(secret: str, msg_id: str, body: bytes) -> dict:
    headers = signatures.signed_headers(secret, body, msg_id=msg_id)
    return {
        f"HTTP_{name.upper().replace('-', '_')}": value
        for name, value in headers.items()
    }


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_webhooks_run_while_redis_is_down(closed_redis, alice, caplog):
    flow = webhook_flow(alice)
    post_webhook(flow)  # the first run of a process also starts its sandbox

    response, elapsed = post_webhook(flow)

    assert response.status_code == 200
    assert response.json()["results"]["greet"] == {"greeting": "hi Ada"}
    assert elapsed < FAST
    assert FlowRun.objects.filter(flow=flow).count() == 2
    assert "rate limit not applied" in caplog.text


def test_a_signed_webhook_runs_while_redis_is_down(closed_redis, alice, caplog):
    secret = signatures.generate_secret()
    flow = webhook_flow(alice, webhook_secret=secret)
    body = b'{"name": "Ada"}'

    response, _ = post_webhook(flow, body, signed(secret, "msg_1", body))

    assert response.status_code == 200


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_webhooks_answer_quickly_while_redis_hangs(frozen_redis, alice, settings):
    settings.WEBHOOK_RATE_LIMIT = "1000/d"
    flow = webhook_flow(alice)
    assert post_webhook(flow)[0].status_code == 200
    frozen_redis.freeze()

    answers = [post_webhook(flow) for _ in range(5)]

    assert [response.status_code for response, _ in answers] == [200] * 5
    assert max(elapsed for _, elapsed in answers) < FAST
    assert FlowRun.objects.filter(flow=flow).count() == 6


def test_the_limit_holds_again_once_redis_is_back(frozen_redis, alice, settings):
    settings.WEBHOOK_RATE_LIMIT = "2/d"
    flow = webhook_flow(alice)
    frozen_redis.freeze()
    post_webhook(flow)
    frozen_redis.thaw()

    statuses = [post_webhook(flow)[0].status_code for _ in range(3)]

    assert statuses == [200, 200, 429]


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_sign_in_works_while_redis_hangs(frozen_redis, alice):
    alice.set_password("correct horse")
    alice.save()
    frozen_redis.freeze()
    client = Client()
    started = time.monotonic()

    wrong = client.post(
        "/api/auth/login",
        json.dumps({"username": "alice", "password": "nope"}),
        content_type="application/json",
    )
    right = client.post(
        "/api/auth/login",
        json.dumps({"username": "alice", "password": "correct horse"}),
        content_type="application/json",
    )

    assert wrong.status_code == 400
    assert wrong.json()["error"]["code"] == "invalid_credentials"
    assert right.status_code == 200
    assert right.json()["username"] == "alice"
    assert time.monotonic() - started < 2 * FAST
