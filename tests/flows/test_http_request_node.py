"""The http_request node against a real HTTP server on loopback, and its SSRF wall."""

from __future__ import annotations

import ipaddress
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from flows.engine import run_flow
from flows.outbound import is_public
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


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
            "user_agent": self.headers.get("User-Agent"),
            "body": received,
        }
        self.reply(200, json.dumps(echo).encode())


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.hits = []
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def allow_loopback(settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]


def base(server) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def run_request(input=None, **data):
    nodes, edges = chain(trigger(), node("call", "http_request", **data))
    return run_flow(FlowFactory(nodes=nodes, edges=edges), input or {}, "manual")


def test_a_get_outputs_status_headers_and_parsed_json(server, allow_loopback):
    run = run_request(url=base(server) + "/json")

    assert run.status == "succeeded"
    output = run.results["call"]
    assert output["status"] == 200
    assert output["body"] == {"items": [1, 2], "ok": True}
    assert output["headers"]["x-id"] == "7"
    assert output["headers"]["content-type"] == "application/json"
    assert server.hits == ["/json"]


def test_a_text_response_stays_text(server, allow_loopback):
    run = run_request(url=base(server) + "/text")

    assert run.results["call"]["body"] == "héllo"


def test_an_error_status_is_an_output_not_a_failure(server, allow_loopback):
    run = run_request(url=base(server) + "/missing")

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 404
    assert run.results["call"]["body"] == {"error": "nope"}


def test_url_headers_and_body_are_templated(server, allow_loopback):
    run = run_request(
        {"path": "echo", "token": "t0k", "name": "Ada"},
        method="POST",
        url=base(server) + "/{{ input.path }}",
        headers={"X-Token": "{{ input.token }}"},
        body={"name": "{{ input.name }}", "n": 1},
    )

    echo = run.results["call"]["body"]
    assert echo["token"] == "t0k"
    assert echo["user_agent"].startswith("Weir")
    assert echo["content_type"] == "application/json"
    assert json.loads(echo["body"]) == {"name": "Ada", "n": 1}
    assert echo["host"] == f"127.0.0.1:{server.server_address[1]}"


def test_redirects_are_followed_within_allowed_addresses(server, allow_loopback):
    run = run_request(url=base(server) + "/redirect?to=/json")

    assert run.results["call"]["body"] == {"items": [1, 2], "ok": True}
    assert server.hits == ["/redirect?to=/json", "/json"]


def test_loopback_is_refused_without_the_allowlist(server):
    run = run_request(url=base(server) + "/json")

    assert run.status == "failed"
    assert run.error["node_id"] == "call"
    assert run.error["code"] == "address_refused"
    assert server.hits == []


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[fec0::1]/",
        "http://[::127.0.0.1]/",
        "http://[::ffff:0:a9fe:a9fe]/",
        "http://[64:ff9b:1::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://localhost/",
        "http://224.0.0.1/",
        "http://100.64.0.1/",
    ],
)
def test_private_and_special_addresses_are_refused(url, settings):
    # An allowlist naming one address opens exactly that one.
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.2"]
    started = time.monotonic()

    run = run_request(url=url, timeout_ms=5000)

    assert run.status == "failed"
    assert run.error["code"] == "address_refused"
    assert time.monotonic() - started < 2  # refused before any connection attempt


def test_a_redirect_to_a_refused_address_is_not_followed(server, allow_loopback):
    run = run_request(url=base(server) + "/redirect?to=http://169.254.169.254/latest")

    assert run.status == "failed"
    assert run.error["code"] == "address_refused"
    assert server.hits == ["/redirect?to=http://169.254.169.254/latest"]


def test_a_redirect_to_another_loopback_address_is_refused(server, allow_loopback):
    target = f"http://[::1]:{server.server_address[1]}/json"

    run = run_request(url=base(server) + f"/redirect?to={target}")

    assert run.error["code"] == "address_refused"


def test_the_allowlist_takes_networks_and_host_names(server, settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.0/8"]
    assert run_request(url=base(server) + "/json").status == "succeeded"

    settings.HTTP_NODE_ALLOWLIST = ["localhost"]
    port = server.server_address[1]
    assert run_request(url=f"http://localhost:{port}/json").status == "succeeded"


def test_a_response_over_the_size_cap_fails_the_node(server, allow_loopback, settings):
    settings.HTTP_NODE_MAX_RESPONSE_BYTES = 1000

    run = run_request(url=base(server) + "/big")

    assert run.status == "failed"
    assert run.error["code"] == "response_too_large"


def test_a_slow_server_times_the_node_out(server, allow_loopback):
    started = time.monotonic()

    run = run_request(url=base(server) + "/slow", timeout_ms=200)

    assert run.status == "timed_out"
    assert run.error["code"] == "http_timeout"
    assert time.monotonic() - started < 1.5  # the server answers after 2 s


def test_an_unresolvable_host_fails_clearly(allow_loopback):
    run = run_request(url="http://no-such-host.invalid/")

    assert run.status == "failed"
    assert run.error["code"] == "dns_error"


def test_a_templated_url_that_is_not_http_fails(allow_loopback):
    run = run_request({"url": "file:///etc/passwd"}, url="{{ input.url }}")

    assert run.error["code"] == "invalid_url"


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("169.254.169.254", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("100.64.0.1", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:10.0.0.1", False),
        ("64:ff9b::7f00:1", False),
        ("2002:7f00:1::", False),
        # IPv6 forms that embed an IPv4 address are refused whatever it is.
        ("::127.0.0.1", False),  # IPv4-compatible ::/96
        ("::a9fe:a9fe", False),  # ::169.254.169.254
        ("::8.8.8.8", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped ::ffff:0:0/96
        ("::ffff:8.8.8.8", False),
        ("::ffff:0:7f00:1", False),  # IPv4-translated ::ffff:0:0:0/96
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 64:ff9b::/96
        ("64:ff9b::808:808", False),
        ("64:ff9b:1::a9fe:a9fe", False),  # local NAT64 64:ff9b:1::/48
        ("2002:808:808::1", False),  # 6to4 2002::/16
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo 2001::/32
        # Outside global unicast 2000::/3, or documentation inside it.
        ("fec0::1", False),  # deprecated site-local
        ("fd00::1", False),  # unique local
        ("febf::1", False),  # link-local
        ("ff0e::1", False),  # global-scope multicast
        ("100::1", False),  # discard-only
        ("2001:db8::1", False),  # documentation
        ("3fff::1", False),  # documentation (RFC 9637)
        ("2001:4860:4860::8888", True),
        ("2a00:1450:4001:80b::200e", True),
    ],
)
def test_only_global_unicast_addresses_are_public(address, public):
    assert is_public(ipaddress.ip_address(address)) is public
