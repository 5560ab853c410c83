"""A loopback HTTP server for outbound tests: fixtures `server`, `allow_loopback`."""

from __future__ import annotations

import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def reply(self, status, body: bytes, content_type="application/json", extra=()):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self.server.hits.append(self.path)
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path == "/json":
            self.reply(200, b'{"items": [1, 2], "ok": true}', extra=[("X-Id", "7")])
        elif parts.path == "/text":
            self.reply(200, "héllo".encode(), "text/plain; charset=utf-8")
        elif parts.path == "/redirect":
            self.reply(302, b"", "text/plain", extra=[("Location", query["to"][0])])
        elif parts.path == "/echo-auth":
            # Echoes what a credential adds: a careless API does exactly this.
            echo = {
                "authorization": self.headers.get("Authorization"),
                "x_api_key": self.headers.get("X-Api-Key"),
                "x_hello_token": self.headers.get("X-Hello-Token"),
                "query": parts.query,
            }
            self.reply(
                200,
                json.dumps(echo).encode(),
                extra=[("X-Echo-Auth", self.headers.get("Authorization") or "")],
            )
        elif parts.path == "/protected":
            # 200 only for a request carrying one of `server.accepts` as its
            # Authorization, its X-Api-Key or its api_key parameter; else 401.
            offered = {
                self.headers.get("Authorization"),
                self.headers.get("X-Api-Key"),
                *query.get("api_key", []),
            }
            if offered & self.server.accepts:
                self.reply(200, b'{"welcome": true}')
            else:
                self.reply(401, b'{"error": "who are you?"}')
        elif parts.path == "/flaky":
            # 503 for the first `fail` calls, then 200: a service coming back.
            seen = sum(1 for hit in self.server.hits if hit.startswith("/flaky"))
            failing = seen <= int(query.get("fail", ["2"])[0])
            self.reply(503 if failing else 200, b'{"call": %d}' % seen)
        elif parts.path == "/charset":
            # `size` bytes of "x" labelled with the charset `name`.
            size = int(query.get("size", ["5"])[0])
            charset = query["name"][0]
            self.reply(200, b"x" * size, f"text/plain; charset={charset}")
        elif parts.path == "/faq":  # a web page for a knowledge base
            page = b"<h1>FAQ</h1><p>Parcels ship on Tuesdays.</p>"
            self.reply(200, page, "text/html; charset=utf-8")
        elif parts.path == "/big":
            self.reply(200, b"x" * 5000, "text/plain")
        elif parts.path == "/slow":
            time.sleep(2.0)
            self.reply(200, b"{}")
        else:
            self.reply(404, b'{"error": "nope"}')

    def do_POST(self):
        self.server.hits.append(self.path)
        length = int(self.headers.get("Content-Length", 0))
        received = self.rfile.read(length).decode()
        echo = {
            "method": "POST",
            "content_type": self.headers.get("Content-Type"),
            "host": self.headers.get("Host"),
            "token": self.headers.get("X-Token"),
            "idempotency_key": self.headers.get("Idempotency-Key"),
            "user_agent": self.headers.get("User-Agent"),
            "body": received,
        }
        self.reply(200, json.dumps(echo).encode())


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """Tests of timeouts hang up on purpose: a reply to a client that has
        gone is expected, not a traceback at the end of the suite's output."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture
def server():
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    httpd.hits = []
    httpd.accepts = set()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def allow_loopback(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]


def base(server) -> str:
    """The loopback server's root URL."""
    return f"http://127.0.0.1:{server.server_address[1]}"
