"""`/api/mcp` with the official SDK's real client over real HTTP, against granian
serving Weir (config.serve, the production entry point), signed in with an API token."""

from __future__ import annotations

import json
from datetime import timedelta

import httpx2
import pytest
from django.utils import timezone
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from accounts.tokens.models import ApiToken
from agents.mcp_server import call_tool, list_tools
from core.net.mcp_client import run_async
from flows.models import Flow, FlowRun
from tests.factories import FlowFactory, webhook_code_graph

ORDER_CODE = "return {order: input.number, status: 'shipped'};"
SCHEMA = {"type": "object", "properties": {"number": {"type": "integer"}}}


def flow_of(owner, name, schema=SCHEMA, offered=True):
    """A flow with an input schema, marked "Offer over MCP" unless told not."""
    nodes, edges = webhook_code_graph(ORDER_CODE)
    return FlowFactory(
        created_by=owner,
        name=name,
        description=f"{name} by number.",
        input_schema=schema,
        nodes=nodes,
        edges=edges,
        mcp_offered=offered,
    )


def token_for(user, scopes=("flows:read", "flows:run")) -> str:
    _, value = ApiToken.issue(
        user, "mcp", list(scopes), timezone.now() + timedelta(days=1)
    )
    return value


def mcp(url: str, headers: dict, work):
    """Run `work(client)` with the SDK's client connected to `url`."""

    async def main():
        async with httpx2.AsyncClient(headers=headers, timeout=30) as http:
            transport = streamable_http_client(url, http_client=http)
            async with Client(transport, cache=None) as client:
                return await work(client)

    # On a thread of its own if a browser test left a loop running here.
    return run_async(main)


@pytest.fixture
def weir(granian):
    return granian(threads=4)


def test_lists_and_calls_the_callers_flows_and_never_anothers(weir, alice, bob):
    flow_of(alice, "Look up order")
    flow_of(alice, "No schema", schema={})
    flow_of(bob, "Bob's secret flow")
    url = f"http://127.0.0.1:{weir.port}/api/mcp"
    headers = {"Authorization": f"Bearer {token_for(alice)}"}

    async def work(client):
        listed = await client.list_tools()
        called = await client.call_tool("look_up_order", {"number": 7})
        others = await client.call_tool("bob_s_secret_flow", {"number": 1})
        return listed, called, others

    listed, called, others = mcp(url, headers, work)

    assert [tool.name for tool in listed.tools] == ["look_up_order"]
    assert listed.tools[0].description == "Look up order by number."
    assert listed.tools[0].input_schema == SCHEMA
    assert called.is_error is False
    result = json.loads(called.content[0].text)
    assert result["output"] == {"order": 7, "status": "shipped"}
    run = FlowRun.objects.get(pk=result["run_id"])
    assert (run.trigger, run.status, run.flow.created_by) == ("mcp", "succeeded", alice)
    assert others.is_error is True
    assert "no tool" in others.content[0].text.lower()
    assert not FlowRun.objects.filter(flow__created_by=bob).exists()


def test_a_flow_not_offered_over_mcp_is_neither_listed_nor_callable(weir, alice):
    flow_of(alice, "Look up order")
    flow_of(alice, "Refund order", offered=False)
    url = f"http://127.0.0.1:{weir.port}/api/mcp"
    headers = {"Authorization": f"Bearer {token_for(alice)}"}

    async def work(client):
        return await client.list_tools(), await client.call_tool(
            "refund_order", {"number": 7}
        )

    listed, called = mcp(url, headers, work)
    assert [tool.name for tool in listed.tools] == ["look_up_order"]
    assert called.is_error is True
    assert "no tool" in called.content[0].text.lower()
    assert not FlowRun.objects.exists()


def test_a_token_without_flows_run_lists_but_cannot_call(weir, alice):
    flow_of(alice, "Look up order")
    url = f"http://127.0.0.1:{weir.port}/api/mcp"
    headers = {"Authorization": f"Bearer {token_for(alice, ['flows:read'])}"}

    async def work(client):
        return await client.list_tools(), await client.call_tool(
            "look_up_order", {"number": 7}
        )

    listed, called = mcp(url, headers, work)
    assert [tool.name for tool in listed.tools] == ["look_up_order"]
    assert called.is_error is True
    assert "flows:run" in called.content[0].text
    assert not FlowRun.objects.exists()


def test_without_credentials_the_endpoint_is_401_in_the_envelope(weir):
    answer = weir.post_json(
        "/api/mcp", {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    )
    assert answer.status == 401
    assert json.loads(answer.body)["error"]["code"] == "not_authenticated"


def test_a_wrong_token_is_401(weir):
    answer = weir.post_json(
        "/api/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        {"Authorization": "Bearer weir_pat_wrong"},
    )
    assert answer.status == 401


def test_a_session_signs_in_too_and_answers_json(api, alice, bob):
    """A browser session works like a token (Django's test client, one process):
    the legacy initialize handshake, then tools/list, each a JSON answer."""
    flow_of(alice, "Look up order")
    flow_of(bob, "Bob's secret flow")
    accept = {"HTTP_ACCEPT": "application/json, text/event-stream"}
    initialize = api.post(
        "/api/mcp",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        format="json",
        **accept,
    )
    assert initialize.status_code == 200, initialize.content
    assert initialize["Content-Type"].startswith("application/json")
    assert initialize.json()["result"]["serverInfo"]["name"] == "weir"
    listed = api.post(
        "/api/mcp",
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        format="json",
        HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
        **accept,
    )
    assert listed.status_code == 200, listed.content
    names = [tool["name"] for tool in listed.json()["result"]["tools"]]
    assert names == ["look_up_order"]


def team_with(members: dict):
    team = Workspace.objects.create(name="Team", slug="team")
    for user, role in members.items():
        Membership.objects.create(workspace=team, user=user, role=role)
    return team


def test_a_viewer_is_offered_no_team_flow_and_cannot_run_one(alice, bob):
    team = team_with({alice: "owner", bob: "viewer"})
    nodes, edges = webhook_code_graph("return {secret: 'TEAM-DATA'};")
    FlowFactory(
        created_by=alice,
        workspace=team,
        name="Team op",
        input_schema=SCHEMA,
        nodes=nodes,
        edges=edges,
        mcp_offered=True,  # offered: it is bob's role that keeps it from him
    )

    assert list_tools(bob).tools == []
    called = call_tool(bob, True, "team_op", {"number": 1})
    assert called.is_error is True
    assert "TEAM-DATA" not in called.content[0].text
    assert not FlowRun.objects.exists()


def test_a_runner_is_offered_and_runs_the_team_flow(alice, bob):
    team = team_with({alice: "owner", bob: "runner"})
    Flow.objects.filter(pk=flow_of(alice, "Team op").pk).update(workspace=team)

    assert [tool.name for tool in list_tools(bob).tools] == ["team_op"]
    called = call_tool(bob, True, "team_op", {"number": 3})
    assert called.is_error is False
    assert FlowRun.objects.get().trigger == "mcp"


def test_a_tools_call_is_in_the_audit_log_like_any_run_started_by_hand(api, alice):
    flow_of(alice, "Look up order")
    response = api.post(
        "/api/mcp",
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "look_up_order", "arguments": {"number": 7}},
        },
        format="json",
        HTTP_ACCEPT="application/json, text/event-stream",
        HTTP_MCP_PROTOCOL_VERSION="2025-06-18",
    )

    assert response.status_code == 200, response.content
    run = FlowRun.objects.get()
    event = AuditEvent.objects.get(action="run.started")
    assert (event.actor, event.target_id) == (alice, str(run.pk))
    assert event.changes == {"flow_id": str(run.flow_id), "status": run.status}
