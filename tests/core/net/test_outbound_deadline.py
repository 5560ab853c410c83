"""The http_request node never outlasts its timeout_ms nor the run's deadline.

A timeout set once on the socket bounds each read, not the request: a server
that trickles one byte at a time would keep the node (and the run) waiting far
past both limits. These servers trickle on purpose, on loopback.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = [pytest.mark.django_db, pytest.mark.timing]

TLS = b"\x16"  # the first byte of a TLS ClientHello
# What a trickling server sends for a request path: (bytes, pause after them).
Script = Callable[[str], Iterator[tuple[bytes, float]]]


class TricklingServer:
    """A raw TCP server that answers each request by following a script slowly."""

    def __init__(self, script: Script):
        self.script = script
        self.paths: list[str] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            answering = threading.Thread(target=self.answer, args=(connection,))
            answering.daemon = True
            answering.start()

    def answer(self, connection: socket.socket):
        with connection:
            request = b""
            while b"\r\n\r\n" not in request and not request.startswith(TLS):
                chunk = connection.recv(65536)
                if not chunk:
                    return
                request += chunk
            path = "tls" if request.startswith(TLS) else request.split(b" ")[1].decode()
            self.paths.append(path)
            try:
                for data, pause in self.script(path):
                    connection.sendall(data)
                    time.sleep(pause)
            except OSError:
                pass  # the node hung up, as it should

    def close(self):
        self.listener.close()


@pytest.fixture
def trickling(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    servers = []

    def start(script: Script) -> TricklingServer:
        servers.append(TricklingServer(script))
        return servers[-1]

    yield start
    for server in servers:
        server.close()


def trickled_body(path):
    """Headers at once, then 40 bytes of body at one byte every 0.2 s (8 s)."""
    yield b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n", 0
    yield b"Content-Length: 40\r\n\r\n", 0
    for _ in range(40):
        yield b"x", 0.2


def trickled_headers(path):
    """The status line and headers at one byte every 0.1 s (about 7 s)."""
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\n"
    for byte in head:
        yield bytes([byte]), 0.1
    yield b"ok", 0


def slow_redirects(path):
    """Every hop redirects to the next, its headers spread over 2.5 s."""
    hop = int(path.strip("/") or 0)
    yield f"HTTP/1.1 302 Found\r\nLocation: /{hop + 1}\r\n".encode(), 0
    for _ in range(10):
        yield b"X-Padding: slow\r\n", 0.25
    yield b"Content-Length: 0\r\n\r\n", 0


def trickled_tls_handshake(path):
    """A TLS record header announcing 64 bytes, then one byte every 0.2 s (13 s)."""
    yield b"\x16\x03\x03\x00\x40", 0.2
    for _ in range(64):
        yield b"\x02", 0.2


def timed_run(server, scheme="http", **data):
    url = f"{scheme}://127.0.0.1:{server.port}/"
    nodes, edges = chain(trigger(), node("call", "http_request", url=url, **data))
    flow = FlowFactory(nodes=nodes, edges=edges)
    started = time.monotonic()
    run = run_flow(flow, {}, "manual")
    return run, time.monotonic() - started


def test_a_body_trickling_one_byte_at_a_time_stops_at_timeout_ms(trickling):
    server = trickling(trickled_body)

    run, elapsed = timed_run(server, timeout_ms=1000)

    assert run.status == "timed_out"
    assert run.error["node_id"] == "call"
    assert run.error["code"] == "http_timeout"
    assert "1000 ms" in run.error["message"]
    assert 0.9 < elapsed < 2.5  # the whole body takes 8 s
    assert run.steps.get(node_id="call").status == "failed"


def test_headers_trickling_one_byte_at_a_time_stop_at_timeout_ms(trickling):
    server = trickling(trickled_headers)

    run, elapsed = timed_run(server, timeout_ms=1000)

    assert run.status == "timed_out"
    assert run.error["code"] == "http_timeout"
    assert 0.9 < elapsed < 2.5  # the headers take about 7 s


def test_the_runs_deadline_cuts_a_trickling_request_short(trickling, settings):
    settings.RUN_TIMEOUT_SECONDS = 1
    server = trickling(trickled_body)

    run, elapsed = timed_run(server)  # timeout_ms defaults to 10 s

    assert run.status == "timed_out"
    assert run.error["code"] == "run_timeout"
    assert "time limit" in run.error["message"]
    assert 0.9 < elapsed < 2.5
    assert run.duration_ms < 2500


def test_a_slow_redirect_chain_stops_at_timeout_ms(trickling):
    server = trickling(slow_redirects)

    run, elapsed = timed_run(server, timeout_ms=3000)

    assert run.status == "timed_out"
    assert run.error["code"] == "http_timeout"
    assert 2.9 < elapsed < 4.2  # two whole hops take 5 s
    assert server.paths == ["/", "/1"]


def test_a_trickled_tls_handshake_stops_at_timeout_ms(trickling):
    server = trickling(trickled_tls_handshake)

    run, elapsed = timed_run(server, scheme="https", timeout_ms=1000)

    assert run.status == "timed_out"
    assert run.error["code"] == "http_timeout"
    assert 0.9 < elapsed < 2.5
    assert server.paths == ["tls"]
