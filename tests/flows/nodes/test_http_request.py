"""The http_request node against a real HTTP server on loopback.

The outbound client's own rules (addresses, redirects, limits) are tested in
tests/core/net/test_outbound*.py; here, what the node adds: templating, its output,
its timeout and how the client's failures become the run's error.
"""

from __future__ import annotations

import base64
import json
import time

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db


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


def test_an_error_status_is_the_output_when_on_http_error_is_output(
    server, allow_loopback
):
    run = run_request(url=base(server) + "/missing", on_http_error="output")

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 404
    assert run.results["call"]["body"] == {"error": "nope"}


def test_an_error_status_fails_the_node_by_default_with_status_and_body(
    server, allow_loopback
):
    run = run_request(url=base(server) + "/missing")

    assert run.status == "failed"
    assert run.error == {
        "node_id": "call",
        "code": "http_error",
        "message": 'The server answered HTTP 404. Body: {"error":"nope"}',
        "status": 404,
        "body": '{"error":"nope"}',
    }
    assert run.results == {"trigger": {}}


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


def test_the_request_carries_an_idempotency_key_of_run_and_node(server, allow_loopback):
    run = run_request(method="POST", url=base(server) + "/echo", body={})

    assert run.results["call"]["body"]["idempotency_key"] == f"{run.id}:call"


def test_a_flows_own_idempotency_key_is_kept(server, allow_loopback):
    run = run_request(
        method="POST",
        url=base(server) + "/echo",
        headers={"idempotency-key": "mine"},
        body={},
    )

    assert run.results["call"]["body"]["idempotency_key"] == "mine"


def test_redirects_are_followed_within_allowed_addresses(server, allow_loopback):
    run = run_request(url=base(server) + "/redirect?to=/json")

    assert run.results["call"]["body"] == {"items": [1, 2], "ok": True}
    assert server.hits == ["/redirect?to=/json", "/json"]


def test_a_refused_address_fails_the_node_with_the_clients_code(server):
    run = run_request(url=base(server) + "/json")

    assert run.status == "failed"
    assert run.error["node_id"] == "call"
    assert run.error["code"] == "address_refused"
    assert server.hits == []


def test_a_slow_server_times_the_node_out(server, allow_loopback):
    started = time.monotonic()

    run = run_request(url=base(server) + "/slow", timeout_ms=200)

    assert run.status == "timed_out"
    assert run.error["code"] == "http_timeout"
    assert time.monotonic() - started < 1.5  # the server answers after 2 s


def test_a_templated_url_that_is_not_http_fails(allow_loopback):
    run = run_request({"url": "file:///etc/passwd"}, url="{{ input.url }}")

    assert run.error["code"] == "invalid_url"


@pytest.mark.timing
def test_a_body_in_a_costly_codec_is_kept_as_base64_within_the_timeout(
    server, allow_loopback, settings
):
    # Decoding 1 MiB as punycode took longer than any timeout_ms (issue 27, item 14).
    settings.RUN_MAX_OUTPUT_BYTES = 2 * 1024 * 1024  # room for 1 MiB in base64
    started = time.monotonic()

    run = run_request(
        url=base(server) + "/charset?name=punycode&size=1048576", timeout_ms=2000
    )

    assert time.monotonic() - started < 2.0
    assert run.status == "succeeded"
    output = run.results["call"]
    assert output["body_encoding"] == "base64"
    assert output["body"] == base64.b64encode(b"x" * 1048576).decode()
