"""The mcp_tool node against the SDK's own MCP server on loopback (tests/mcp_server.py).

The client's own rules (address wall, deadline) are tested in
tests/core/net/test_mcp_client.py; here, what the node adds: templated
arguments, its output, its credential, its timeout and its error codes.
"""

from __future__ import annotations

import time

import pytest

from flows.engine import run_flow
from flows.graph import validate_graph
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


def run_tool(input=None, owner=None, **data):
    nodes, edges = chain(trigger(), node("mcp", "mcp_tool", **data))
    extra = {"created_by": owner} if owner else {}
    flow = FlowFactory(nodes=nodes, edges=edges, **extra)
    return run_flow(flow, input or {}, "manual")


def test_calls_the_tool_with_templated_arguments(mcp_server, allow_loopback):
    run = run_tool(
        {"x": 40},
        server_url=mcp_server,
        tool="add",
        arguments={"a": "{{ input.x }}", "b": 2},
    )
    assert run.status == "succeeded", run.error
    assert run.results["mcp"] == {"content": "42", "structured": {"result": 42}}


def test_the_credential_is_sent_as_its_header(mcp_server, allow_loopback, alice):
    key = make_credential(alice, secrets={"token": "node-s3cret"})
    run = run_tool(
        owner=alice,
        server_url=mcp_server,
        tool="echo",
        arguments={"text": "hi"},
        credential_id=str(key.pk),
    )
    # The server got the token; the run's stored output has it redacted.
    assert run.results["mcp"]["content"] == "hi (auth: Bearer [redacted:api_key])"


def test_a_tool_error_fails_the_node(mcp_server, allow_loopback):
    run = run_tool(server_url=mcp_server, tool="fail", arguments={})
    assert run.status == "failed"
    assert run.error["code"] == "tool_error"
    assert "always fails" in run.error["message"]


def test_an_unknown_tool_fails_the_node(mcp_server, allow_loopback):
    run = run_tool(server_url=mcp_server, tool="nope", arguments={})
    assert run.status == "failed"
    assert run.error["code"] == "tool_error"


# transactional_db: the run lasts past deferred.STORE_AFTER_SECONDS, so the lease
# thread inserts it from its own connection, which on SQLite would wait out the busy
# timeout (20 s) behind the test's open transaction.
def test_a_slow_tool_times_out_at_timeout_ms(
    mcp_server, allow_loopback, transactional_db
):
    started = time.monotonic()
    run = run_tool(
        server_url=mcp_server, tool="slow", arguments={"seconds": 10}, timeout_ms=800
    )
    assert run.status == "timed_out"
    assert run.error["code"] == "mcp_timeout"
    assert time.monotonic() - started < 3


def test_a_slow_tool_times_out_at_the_runs_deadline(
    mcp_server, allow_loopback, settings
):
    settings.RUN_TIMEOUT_SECONDS = 1
    run = run_tool(
        server_url=mcp_server, tool="slow", arguments={"seconds": 10}, timeout_ms=900
    )
    assert run.status == "timed_out"
    assert run.error["code"] in ("run_timeout", "mcp_timeout")


def test_a_tool_is_given_past_60_seconds_within_the_runs_deadline(
    mcp_server, allow_loopback, settings, monkeypatch
):
    """No fixed 60 s limit: with timeout_ms 120 s and a run allowed 600 s, the
    call is given the node's 120 s (checked on the deadline handed to the
    client, not by waiting two minutes)."""
    from core.net import mcp_client

    settings.RUN_TIMEOUT_SECONDS = 600
    given, call_tool = [], mcp_client.call_tool

    def timed(url, headers, name, arguments, deadline):
        given.append(deadline - time.monotonic())
        return call_tool(url, headers, name, arguments, deadline)

    monkeypatch.setattr(mcp_client, "call_tool", timed)
    run = run_tool(
        server_url=mcp_server,
        tool="add",
        arguments={"a": 1, "b": 2},
        timeout_ms=120_000,
    )

    assert run.status == "succeeded", run.error
    [left] = given
    assert 110 < left <= 120


def test_a_private_address_is_refused(mcp_server, settings):
    settings.HTTP_NODE_ALLOWLIST = []
    run = run_tool(server_url=mcp_server, tool="add", arguments={"a": 1, "b": 1})
    assert run.status == "failed"
    assert run.error["code"] == "address_refused"


def test_arguments_that_are_not_an_object_fail_the_node(mcp_server, allow_loopback):
    run = run_tool(
        server_url=mcp_server,
        tool="add",
        arguments="{{ input.list }}",
        input={"list": [1]},
    )
    assert run.error["code"] == "invalid_arguments"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"server_url": "ftp://x", "tool": "t"}, "data.server_url"),
        ({"server_url": "https://x.example/mcp", "tool": ""}, "data.tool"),
        (
            {"server_url": "https://x.example/mcp", "tool": "t", "arguments": 3},
            "data.arguments",
        ),
        (
            {"server_url": "https://x.example/mcp", "tool": "t", "timeout_ms": 0},
            "data.timeout_ms",
        ),
    ],
)
def test_save_checks_name_the_field(data, field):
    nodes, edges = chain(trigger(), node("mcp", "mcp_tool", **data))
    problems = validate_graph(nodes, edges).nodes
    assert field in {problem["field"] for problem in problems}, problems
