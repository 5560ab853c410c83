"""Real listeners for the log stream tests: a syslog server over UDP and over
TCP (RFC 6587 octet counting), and an HTTP endpoint taking JSON lines that
can be down, or hang, on demand. Each keeps what it received."""

from __future__ import annotations

import json
import re
import socketserver
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

RFC5424 = re.compile(
    r"^<(?P<pri>\d+)>1 (?P<time>\S+) (?P<host>\S+) weir (?P<pid>\d+) "
    r"(?P<msgid>\S+) - (?P<line>.*)$",
    re.S,
)


class Received:
    """What a listener got: parsed syslog messages or JSON lines."""

    def __init__(self):
        self.items: list[dict] = []
        self.lock = threading.Lock()

    def add(self, item: dict) -> None:
        with self.lock:
            self.items.append(item)

    def events(self) -> list[dict]:
        with self.lock:
            return [item["json"]["event"] for item in self.items]


def syslog_message(raw: bytes) -> dict:
    match = RFC5424.match(raw.decode())
    assert match, raw
    return {**match.groupdict(), "json": json.loads(match["line"])}


class SyslogUdp(socketserver.BaseRequestHandler):
    def handle(self):
        self.server.received.add(syslog_message(self.request[0]))


class SyslogTcp(socketserver.StreamRequestHandler):
    def handle(self):
        while True:
            length = b""
            while not length.endswith(b" "):
                byte = self.rfile.read(1)
                if not byte:
                    return
                length += byte
            self.server.received.add(syslog_message(self.rfile.read(int(length))))


class ThreadingUdp(socketserver.ThreadingMixIn, socketserver.UDPServer):
    daemon_threads = True


class ThreadingTcp(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def start_syslog(transport: str):
    """A syslog server on a free loopback port: (server, url)."""
    kind, handler = (
        (ThreadingUdp, SyslogUdp)
        if transport == "udp"
        else (
            ThreadingTcp,
            SyslogTcp,
        )
    )
    server = kind(("127.0.0.1", 0), handler)
    server.received = Received()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"{transport}://127.0.0.1:{server.server_address[1]}"


class LinesHandler(BaseHTTPRequestHandler):
    def do_POST(self):
        if self.server.hang.is_set():
            time.sleep(30)
            return
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.server.content_types.append(self.headers["Content-Type"])
        for line in body.decode().splitlines():
            self.server.received.add({"json": json.loads(line)})
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


def start_http(port: int = 0):
    """An HTTP endpoint taking JSON lines: (server, url). `server.hang.set()`
    makes it read nothing and never answer."""
    server = ThreadingHTTPServer(("127.0.0.1", port), LinesHandler)
    server.daemon_threads = True
    server.received = Received()
    server.content_types = []
    server.hang = threading.Event()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/logs"
