"""`python -m config.serve` (granian + config.asgi_bridge), the default server.

The slow-client drill of issue 26: 24 connections trickling a webhook request
at a byte a second held every thread of gunicorn (2 x 4) for 20 s. Here they
wait on the event loop, and another client's requests are answered at once.
"""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

HEAD = (
    b"POST /api/webhooks/{flow} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    b"Content-Type: application/json\r\nContent-Length: 60\r\n\r\n"
)


class Trickle:
    """`count` connections sending a request a byte a second: from its first
    byte (`headers=True`) or after whole headers (the body trickles)."""

    def __init__(self, port: int, path: bytes, count: int, headers: bool):
        request = HEAD.replace(b"/api/webhooks/{flow}", path)
        self.rest = [request if headers else b"{" + b" " * 58 + b"}"] * count
        self.sockets = []
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port))
            if not headers:
                sock.sendall(request)
            self.sockets.append(sock)
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._drip, daemon=True)
        self.thread.start()

    def _drip(self):
        position = 0
        while not self.stopped.wait(1):
            for sock, data in zip(self.sockets, self.rest, strict=True):
                if position < len(data):
                    with contextlib.suppress(OSError):  # the server hung up
                        sock.sendall(data[position : position + 1])
            position += 1

    def close(self):
        self.stopped.set()
        for sock in self.sockets:
            sock.close()


def drill(server, flow, headers: bool):
    trickle = Trickle(
        server.port, f"/api/webhooks/{flow.id}".encode(), 24, headers=headers
    )
    try:
        time.sleep(2.5)  # every trickler has a connection and sent something
        login = server.request("GET", "/login/", timeout=10)
        webhook = server.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"})
    finally:
        trickle.close()
    return login, webhook


# Asserts how long requests take while its own server is loaded: `timing`, so
# `make test` runs it alone, not beside another worker's servers.
@pytest.mark.timing
def test_24_clients_trickling_bodies_do_not_delay_another_clients_requests(
    granian, alice
):
    flow = FlowFactory(created_by=alice)
    server = granian(threads=4, workers=1)

    login, webhook = drill(server, flow, headers=False)

    assert login.status == 200
    assert login.seconds < 1, login.seconds
    assert webhook.status == 200
    assert webhook.seconds < 1, webhook.seconds
    assert FlowRun.objects.filter(flow=flow).count() == 1  # the tricklers ran nothing


# Asserts how long requests take while its own server is loaded: `timing`, so
# `make test` runs it alone, not beside another worker's servers.
@pytest.mark.timing
def test_24_clients_trickling_headers_do_not_delay_another_clients_requests(
    granian, alice
):
    flow = FlowFactory(created_by=alice)
    server = granian(threads=4, workers=1)

    login, webhook = drill(server, flow, headers=True)

    assert (login.status, webhook.status) == (200, 200)
    assert max(login.seconds, webhook.seconds) < 1


def test_sighup_restarts_the_workers_without_losing_a_request(granian, alice):
    nodes, edges = chain(trigger(), node("wait", "delay", ms=1500))
    slow_flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    # The new worker must be listening before the old one stops: importing
    # Django took up to 28 s at load 11 on the shared test machine.
    server = granian(threads=4, workers=1, WEB_RESPAWN_SECONDS=40)
    slow = []
    in_flight = threading.Thread(
        target=lambda: slow.append(
            server.post_json(f"/api/webhooks/{slow_flow.id}", {})
        )
    )
    in_flight.start()
    time.sleep(0.5)

    server.process.send_signal(signal.SIGHUP)
    answers = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and not old_worker_stopped(server):
        answers.append(server.request("GET", "/healthz", timeout=10).status)
        time.sleep(0.05)
    answers.append(server.request("GET", "/healthz", timeout=10).status)
    in_flight.join()

    assert old_worker_stopped(server)
    assert slow[0].status == 200  # the run in hand finished on the old worker
    assert len(answers) > 20
    assert set(answers) == {200}  # never refused, before, during or after


def old_worker_stopped(server) -> bool:
    return b"Stopped old worker-1" in Path(server.log_path).read_bytes()
