"""`/api/mcp` with one SDK server and session manager per process: requests
share them, never a caller. Django's test client on threads of its own (rows
committed, hence `transactional_db`), signed in with API tokens."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Membership, Workspace
from accounts.tokens.models import ApiToken
from agents import mcp_server
from flows.models import Flow, FlowRun
from tests.agents.test_mcp_server import flow_of, token_for

HEADERS = {
    "HTTP_ACCEPT": "application/json, text/event-stream",
    "HTTP_MCP_PROTOCOL_VERSION": "2025-06-18",
}


def rpc(token: str, method: str, params: dict | None = None) -> dict:
    response = Client().post(
        "/api/mcp",
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}},
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {token}",
        **HEADERS,
    )
    assert response.status_code == 200, response.content
    return response.json()["result"]


@pytest.fixture
def two_workspaces(transactional_db, alice, bob):
    """Alice's and bob's flows, each in their own personal workspace."""
    flow_of(alice, "Orders lookup")
    flow_of(bob, "Payroll lookup")
    return token_for(alice), token_for(bob)


def interleaved(monkeypatch, calls: dict):
    """Run `calls` ({name: thunk}) on threads of their own, each held inside
    its handler until all are there: every exchange is on the process's loop
    at once. Returns {name: (result, threads that ran its queries)}."""
    barrier = threading.Barrier(len(calls), timeout=20)
    offered = mcp_server.offered_flows
    seen: dict[str, set] = {name: set() for name in calls}

    def held(user):
        seen[threading.current_thread().name].add(threading.get_ident())
        barrier.wait()
        return offered(user)

    monkeypatch.setattr(mcp_server, "offered_flows", held)
    results: dict = {}
    idents: dict = {}

    def run(name):
        idents[name] = threading.get_ident()
        results[name] = calls[name]()

    threads = [threading.Thread(target=run, args=(n,), name=n) for n in calls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert set(results) == set(calls), "an exchange did not finish"
    # Each request's queries ran on that request's own thread.
    assert all(seen[name] == {idents[name]} for name in calls)
    return results


def test_two_tokens_interleaved_list_only_their_own_flows(two_workspaces, monkeypatch):
    alice_token, bob_token = two_workspaces

    results = interleaved(
        monkeypatch,
        {
            "alice": lambda: rpc(alice_token, "tools/list"),
            "bob": lambda: rpc(bob_token, "tools/list"),
        },
    )

    assert [tool["name"] for tool in results["alice"]["tools"]] == ["orders_lookup"]
    assert [tool["name"] for tool in results["bob"]["tools"]] == ["payroll_lookup"]


def test_two_tokens_interleaved_run_only_their_own_flows(two_workspaces, monkeypatch):
    alice_token, bob_token = two_workspaces
    call = "tools/call"

    results = interleaved(
        monkeypatch,
        {
            # Each asks for the other's flow too: unknown to them.
            "alice": lambda: (
                rpc(alice_token, call, {"name": "payroll_lookup", "arguments": {}}),
                rpc(alice_token, call, {"name": "orders_lookup", "arguments": {}}),
            ),
            "bob": lambda: (
                rpc(bob_token, call, {"name": "orders_lookup", "arguments": {}}),
                rpc(bob_token, call, {"name": "payroll_lookup", "arguments": {}}),
            ),
        },
    )

    for name in ("alice", "bob"):
        other, own = results[name]
        assert other["isError"] is True
        assert "no tool named" in other["content"][0]["text"]
        assert own["isError"] is False, own
    runs = {run.flow.name: run.trigger for run in FlowRun.objects.all()}
    assert runs == {"Orders lookup": "mcp", "Payroll lookup": "mcp"}


def test_one_server_and_one_loop_serve_every_request(two_workspaces):
    alice_token, bob_token = two_workspaces
    rpc(alice_token, "tools/list")
    loop, manager = mcp_server.EXCHANGES.running()

    rpc(bob_token, "tools/list")

    assert mcp_server.EXCHANGES.running() == (loop, manager)
    assert manager.app is mcp_server.SERVER
    assert loop.is_running()


@pytest.fixture
def two_team_tokens(transactional_db, alice, settings):
    """Workspace tokens (weir_wst_) of two teams alice owns, each team with
    one offered flow: the tokens have no user, only their workspace. Both
    teams are alice's account, whose cap must let the two calls the test
    holds side by side in."""
    settings.SYNC_RUNS_PER_ACCOUNT = 2
    later = timezone.now() + timedelta(days=1)
    tokens = []
    for team_name, flow_name in (("North", "Orders lookup"), ("South", "Payroll")):
        team = Workspace.objects.create(name=team_name, slug=team_name.lower())
        Membership.objects.create(workspace=team, user=alice, role="owner")
        Flow.objects.filter(pk=flow_of(alice, flow_name).pk).update(workspace=team)
        scopes = ["flows:read", "flows:run"]
        _, value = ApiToken.issue_for_workspace(
            team, alice, "mcp", scopes, later, "runner"
        )
        tokens.append(value)
    return tokens


def test_two_workspace_tokens_interleaved_see_and_run_only_their_workspace(
    two_team_tokens, monkeypatch
):
    north, south = two_team_tokens
    call = "tools/call"

    results = interleaved(
        monkeypatch,
        {
            "north": lambda: (
                rpc(north, "tools/list"),
                rpc(north, call, {"name": "payroll", "arguments": {}}),
                rpc(north, call, {"name": "orders_lookup", "arguments": {}}),
            ),
            "south": lambda: (
                rpc(south, "tools/list"),
                rpc(south, call, {"name": "orders_lookup", "arguments": {}}),
                rpc(south, call, {"name": "payroll", "arguments": {}}),
            ),
        },
    )

    north_tools, north_other, north_own = results["north"]
    south_tools, south_other, south_own = results["south"]
    assert [tool["name"] for tool in north_tools["tools"]] == ["orders_lookup"]
    assert [tool["name"] for tool in south_tools["tools"]] == ["payroll"]
    assert north_other["isError"] and south_other["isError"]
    assert not north_own["isError"] and not south_own["isError"]
    assert (
        north_own["structuredContent"]["run_id"]
        != (south_own["structuredContent"]["run_id"])
    )
    runs = {run.flow.name: run.flow.workspace.name for run in FlowRun.objects.all()}
    assert runs == {"Orders lookup": "North", "Payroll": "South"}
