"""Which method, headers and body the http_request node re-sends on a redirect.

Two loopback servers on different ports are two origins. Each records what it
received, so the tests see exactly what a redirect would leak to the other one.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db

SECRETS = {
    "Authorization": "Bearer s3cret",
    "Cookie": "session=abc",
    "Proxy-Authorization": "Basic cHJveHk=",
    "X-Api-Key": "key-123",
}


class Recorder(BaseHTTPRequestHandler):
    """Records every request; `/redirect?status=&to=` answers with that redirect."""

    def log_message(self, *args):
        pass

    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        self.server.requests.append(
            {
                "method": self.command,
                "path": self.path,
                "headers": {key.lower(): value for key, value in self.headers.items()},
                "body": body,
            }
        )
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path == "/redirect":
            self.send_response(int(query["status"][0]))
            self.send_header("Location", query["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        answer = json.dumps({"method": self.command, "body": body}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = handle_any


def start_server():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    server.requests = []
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def origins(settings):
    """Two servers: `first` and `other`, the same address on different ports."""
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1", "localhost"]
    first, other = start_server(), start_server()
    yield first, other
    for server in (first, other):
        server.shutdown()
        server.server_close()


def url(server, path="/land", host="127.0.0.1") -> str:
    return f"http://{host}:{server.server_address[1]}{path}"


def redirect(server, status: int, to: str) -> str:
    return url(server, f"/redirect?status={status}&to={quote(to, safe='')}")


def run_request(**data):
    nodes, edges = chain(trigger(), node("call", "http_request", **data))
    return run_flow(FlowFactory(nodes=nodes, edges=edges), {}, "manual")


def test_a_redirect_to_another_port_drops_credentials(origins):
    first, other = origins
    headers = {**SECRETS, "Accept": "application/json"}

    run = run_request(url=redirect(first, 302, url(other)), headers=headers)

    assert run.status == "succeeded"
    assert first.requests[0]["headers"]["authorization"] == "Bearer s3cret"
    [landed] = other.requests
    for name in SECRETS:
        assert name.lower() not in landed["headers"]
    assert landed["headers"]["accept"] == "application/json"
    assert landed["headers"]["user-agent"].startswith("Weir")


def test_a_redirect_to_another_host_name_drops_credentials(origins):
    first, _ = origins
    target = url(first, host="localhost")

    run = run_request(url=redirect(first, 302, target), headers=SECRETS)

    assert run.status == "succeeded"
    landed = first.requests[1]
    assert landed["path"] == "/land"
    assert "authorization" not in landed["headers"]
    assert "cookie" not in landed["headers"]


def test_a_redirect_within_the_origin_keeps_the_headers(origins):
    first, _ = origins

    run = run_request(url=redirect(first, 302, "/land"), headers=SECRETS)

    assert run.status == "succeeded"
    landed = first.requests[1]
    assert landed["headers"]["authorization"] == "Bearer s3cret"
    assert landed["headers"]["x-api-key"] == "key-123"


def test_credentials_dropped_once_stay_dropped_back_on_the_first_origin(origins):
    first, other = origins
    back = redirect(other, 302, url(first))

    run = run_request(url=redirect(first, 302, back), headers=SECRETS)

    assert run.status == "succeeded"
    assert len(first.requests) == 2
    assert first.requests[1]["path"] == "/land"
    assert "authorization" not in first.requests[1]["headers"]


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_post_redirected_by_301_302_or_303_becomes_a_get_without_body(
    origins, status
):
    first, _ = origins

    run = run_request(
        method="POST", url=redirect(first, status, "/land"), body={"order": 7}
    )

    assert run.results["call"]["body"] == {"method": "GET", "body": ""}
    landed = first.requests[1]
    assert "content-type" not in landed["headers"]
    assert first.requests[0]["body"] == '{"order":7}'


def test_a_303_turns_a_put_into_a_get(origins):
    first, _ = origins

    run = run_request(method="PUT", url=redirect(first, 303, "/land"), body="data")

    assert run.results["call"]["body"] == {"method": "GET", "body": ""}


@pytest.mark.parametrize(
    ("method", "status"),
    [("POST", 307), ("POST", 308), ("PUT", 301), ("PUT", 302), ("PATCH", 307)],
)
def test_other_redirects_keep_method_and_body_within_the_origin(
    origins, method, status
):
    first, _ = origins

    run = run_request(
        method=method, url=redirect(first, status, "/land"), body={"order": 7}
    )

    assert run.status == "succeeded"
    assert run.results["call"]["body"] == {"method": method, "body": '{"order":7}'}
    assert first.requests[1]["headers"]["content-type"] == "application/json"


@pytest.mark.parametrize("status", [307, 308])
def test_a_body_is_never_resent_to_another_origin(origins, status):
    first, other = origins

    run = run_request(
        method="POST",
        url=redirect(first, status, url(other)),
        headers=SECRETS,
        body={"card": "4111"},
    )

    assert run.status == "failed"
    assert run.error["code"] == "redirect_refused"
    assert "another origin" in run.error["message"]
    assert other.requests == []


def test_a_307_without_a_body_may_go_to_another_origin_without_credentials(origins):
    first, other = origins

    run = run_request(
        method="DELETE", url=redirect(first, 307, url(other)), headers=SECRETS
    )

    assert run.status == "succeeded"
    [landed] = other.requests
    assert landed["method"] == "DELETE"
    assert "authorization" not in landed["headers"]
