"""An agent's MCP servers as tools: the SDK's own server in a test thread,
reached through the chat API with the echo model calling the tools."""

from __future__ import annotations

import json
import time

import pytest

from accounts.models import Membership, Workspace
from agents.chat import ChatFailed, send_message
from agents.mcp_tools import server_headers
from agents.models import Agent, Message
from tests.factories import AgentFactory, make_credential
from tests.llm_server import openai_text, openai_tool_call


def chat(client, agent, content):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": content}, format="json"
    )


def mcp_agent(owner, url, **server):
    return AgentFactory(
        created_by=owner,
        model="echo:demo",
        mcp_servers=[{"name": "test", "url": url, **server}],
    )


def test_the_servers_tools_are_called_by_prefixed_name(
    api, alice, mcp_server, allow_loopback
):
    agent = mcp_agent(alice, mcp_server)
    response = chat(api, agent, '/tool mcp_test_add {"a": 2, "b": 40}')
    assert response.status_code == 200, response.content
    [call] = response.json()["tool_calls"]
    assert call["name"] == "mcp_test_add"
    assert call["status"] == "succeeded"
    assert call["run_id"] is None
    assert call["result"]["success"] is True
    assert call["result"]["output"] == {"result": 42}
    assert "42" in response.json()["message"]["content"]
    tool_message = Message.objects.get(role="tool")
    assert tool_message.tool_name == "mcp_test_add"


def test_the_credential_goes_in_the_authorization_header(
    api, alice, mcp_server, allow_loopback
):
    key = make_credential(alice, secrets={"token": "mcp-s3cret"})
    agent = mcp_agent(alice, mcp_server, credential=str(key.pk))
    response = chat(api, agent, '/tool mcp_test_echo {"text": "hi"}')
    [call] = response.json()["tool_calls"]
    assert call["result"]["output"] == {"result": "hi (auth: Bearer mcp-s3cret)"}


def test_someone_elses_credential_offers_no_tools(
    api, alice, bob, mcp_server, allow_loopback
):
    key = make_credential(bob, secrets={"token": "bobs"})
    agent = mcp_agent(alice, mcp_server, credential=str(key.pk))
    response = chat(api, agent, '/tool mcp_test_add {"a": 1, "b": 1}')
    assert response.json()["tool_calls"] == []


def test_allowed_tools_limit_what_is_offered(api, alice, mcp_server, allow_loopback):
    agent = mcp_agent(alice, mcp_server, allowed_tools=["echo"])
    response = chat(api, agent, '/tool mcp_test_add {"a": 1, "b": 1}')
    assert response.json()["tool_calls"] == []
    assert "no tool" in response.json()["message"]["content"].lower()


def test_a_model_calling_a_tool_not_allowed_gets_the_unknown_tool_result(
    api, alice, mcp_server, allow_loopback, llm_server
):
    """The model is offered only the allowed tools; a call to another one of
    the server's (a model guessing) is refused as unknown and never sent."""
    agent = AgentFactory(
        created_by=alice,
        model="openai:gpt-test",
        mcp_servers=[{"name": "test", "url": mcp_server, "allowed_tools": ["echo"]}],
    )
    llm_server.queue(openai_tool_call("mcp_test_add", {"a": 1, "b": 1}))
    llm_server.queue(openai_text("I cannot add."))

    response = chat(api, agent, "Add 1 and 1")

    assert response.status_code == 200, response.content
    offered = [
        tool["function"]["name"] for tool in llm_server.requests[0]["json"]["tools"]
    ]
    assert offered == ["mcp_test_echo"]
    [told] = [
        json.loads(message["content"])
        for message in llm_server.requests[1]["json"]["messages"]
        if message["role"] == "tool"
    ]
    assert told["error"]["code"] == "unknown_tool"
    assert "mcp_test_add" in told["error"]["message"]
    assert "2" not in json.dumps(told)


@pytest.mark.parametrize(
    "allowed",
    [["add", ""], "add", [{"name": "add"}], ["x" * 201]],
    ids=["blank", "not-a-list", "not-a-name", "too-long"],
)
def test_bad_allowed_tools_are_refused_under_the_servers_row(api, allowed):
    servers = [
        {"name": "ok", "url": "https://x.example/mcp"},
        {"name": "two", "url": "https://x.example/mcp", "allowed_tools": allowed},
    ]
    response = api.post(
        "/api/agents",
        {"name": "A", "model": "echo:demo", "mcp_servers": servers},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    rows = response.json()["error"]["details"]["mcp_servers"]
    assert list(rows) == ["1"]
    assert "allowed_tools" in rows["1"], rows


def test_allowed_tools_are_stored_trimmed_once_each(api):
    server = {
        "name": "gh",
        "url": "https://x.example/mcp",
        "allowed_tools": [" search ", "search", "get_issue"],
    }
    response = api.post(
        "/api/agents",
        {"name": "A", "model": "echo:demo", "mcp_servers": [server]},
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["mcp_servers"][0]["allowed_tools"] == ["search", "get_issue"]


def test_a_tool_error_reaches_the_model_as_a_failed_result(
    api, alice, mcp_server, allow_loopback
):
    agent = mcp_agent(alice, mcp_server)
    response = chat(api, agent, "/tool mcp_test_fail {}")
    [call] = response.json()["tool_calls"]
    assert call["status"] == "failed"
    assert call["result"]["error"]["code"] == "tool_error"
    assert "always fails" in call["result"]["error"]["message"]


def test_a_tool_may_outlast_a_short_fixed_limit_within_the_turns_time(
    alice, mcp_server, allow_loopback
):
    """No fixed per-call limit: the server's timeout (here 5 s) and the turn's
    deadline decide, so a 1.5 s tool answers."""
    agent = mcp_agent(alice, mcp_server, timeout_seconds=5)
    reply = send_message(
        agent,
        alice,
        '/tool mcp_test_slow {"seconds": 1.5}',
        deadline=time.monotonic() + 10,
    )
    assert reply.tool_calls[0]["result"]["output"] == {"result": "slept 1.5"}


def test_a_tool_is_given_past_60_seconds_when_server_and_turn_allow(
    alice, mcp_server, allow_loopback, monkeypatch
):
    """The issue's "a tool that outlasts 60 s within the turn's deadline",
    without waiting a minute: the call is given the server's 300 s, as the
    turn has 600 s left, so no fixed 60 s limit (n8n's, Flowise's) cuts it."""
    from core.net import mcp_client

    given, call_tool = [], mcp_client.call_tool

    def timed(url, headers, name, arguments, deadline):
        given.append(deadline - time.monotonic())
        return call_tool(url, headers, name, arguments, deadline)

    monkeypatch.setattr(mcp_client, "call_tool", timed)
    agent = mcp_agent(alice, mcp_server, timeout_seconds=300)
    reply = send_message(
        agent,
        alice,
        '/tool mcp_test_add {"a": 2, "b": 40}',
        deadline=time.monotonic() + 600,
    )

    assert reply.tool_calls[0]["result"]["output"] == {"result": 42}
    [left] = given
    assert 290 < left <= 300


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
@pytest.mark.parametrize("limit", ["deadline", "server"])
def test_a_slow_tool_ends_at_the_smaller_of_deadline_and_server_timeout(
    alice, mcp_server, allow_loopback, limit
):
    agent = mcp_agent(alice, mcp_server, timeout_seconds=1 if limit == "server" else 60)
    deadline = time.monotonic() + (1.5 if limit == "deadline" else 30)
    started = time.monotonic()
    try:
        send_message(
            agent, alice, '/tool mcp_test_slow {"seconds": 20}', deadline=deadline
        )
    except ChatFailed as failed:  # the deadline: no time is left for the model
        assert limit == "deadline"
        assert failed.error.code == "timeout"
    elapsed = time.monotonic() - started
    tool_message = Message.objects.get(role="tool")
    assert json.loads(tool_message.content)["error"]["code"] == "timeout"
    assert elapsed < 4


def test_a_server_on_a_private_address_is_refused(api, alice, mcp_server, settings):
    settings.HTTP_NODE_ALLOWLIST = []
    agent = mcp_agent(alice, mcp_server)
    response = chat(api, agent, '/tool mcp_test_add {"a": 1, "b": 1}')
    assert response.status_code == 200
    assert response.json()["tool_calls"] == []


def test_the_owner_reads_and_writes_mcp_servers(api, alice, mcp_server):
    key = make_credential(alice, secrets={"token": "t"})
    response = api.post(
        "/api/agents",
        {
            "name": "With MCP",
            "model": "echo:demo",
            "mcp_servers": [
                {
                    "name": "github",
                    "url": "https://mcp.example.com/mcp",
                    "credential": str(key.pk),
                }
            ],
        },
        format="json",
    )
    assert response.status_code == 201, response.content
    assert response.json()["mcp_servers"] == [
        {
            "name": "github",
            "url": "https://mcp.example.com/mcp",
            "credential": str(key.pk),
            "allowed_tools": [],
            "requires_approval": False,
            "timeout_seconds": 300,
        }
    ]


@pytest.mark.parametrize(
    ("server", "field"),
    [
        ({"name": "Bad Name!", "url": "https://x.example/mcp"}, "name"),
        ({"name": "ok", "url": "ftp://x.example/mcp"}, "url"),
        (
            {"name": "ok", "url": "https://x.example/mcp", "timeout_seconds": 0},
            "timeout_seconds",
        ),
    ],
)
def test_a_bad_server_is_a_validation_error_naming_the_field(api, server, field):
    response = api.post(
        "/api/agents",
        {"name": "A", "model": "echo:demo", "mcp_servers": [server]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert field in response.json()["error"]["details"]["mcp_servers"]["0"]


def test_someone_elses_credential_is_refused_on_save(api, bob):
    key = make_credential(bob, secrets={"token": "t"})
    response = api.post(
        "/api/agents",
        {
            "name": "A",
            "model": "echo:demo",
            "mcp_servers": [
                {"name": "x", "url": "https://x.example/mcp", "credential": str(key.pk)}
            ],
        },
        format="json",
    )
    assert response.status_code == 400
    assert "credential" in response.json()["error"]["details"]["mcp_servers"]["0"]


def test_two_servers_with_one_name_are_refused(api):
    server = {"name": "x", "url": "https://x.example/mcp"}
    response = api.post(
        "/api/agents",
        {"name": "A", "model": "echo:demo", "mcp_servers": [server, server]},
        format="json",
    )
    assert response.status_code == 400
    assert "mcp_servers" in response.json()["error"]["details"]


def two_workspaces(alice, bob):
    """Alice owns Team and Other; bob edits Team and views Other."""
    team = Workspace.objects.create(name="Team", slug="team")
    other = Workspace.objects.create(name="Other", slug="other")
    for workspace, role in ((team, "editor"), (other, "viewer")):
        Membership.objects.create(workspace=workspace, user=alice, role="owner")
        Membership.objects.create(workspace=workspace, user=bob, role=role)
    return team, other


def test_an_editor_cannot_point_an_agents_server_at_another_workspaces_credential(
    bob_api, alice, bob
):
    team, other = two_workspaces(alice, bob)
    secret = make_credential(alice, name="prod", workspace=other)
    agent = AgentFactory(created_by=alice, workspace=team, shared=False)
    server = {"name": "x", "url": "https://attacker.example/mcp"}

    response = bob_api.patch(
        f"/api/agents/{agent.id}",
        {"mcp_servers": [{**server, "credential": str(secret.pk)}]},
        format="json",
    )

    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert details["mcp_servers"]["0"]["credential"] == [
        "The credential must belong to the agent's workspace."
    ]
    assert Agent.objects.get(pk=agent.pk).mcp_servers == []


def test_an_editor_may_name_a_credential_of_the_agents_workspace(bob_api, alice, bob):
    team, _ = two_workspaces(alice, bob)
    key = make_credential(alice, name="team", workspace=team)
    agent = AgentFactory(created_by=alice, workspace=team, shared=False)
    server = {"name": "x", "url": "https://x.example/mcp", "credential": str(key.pk)}

    response = bob_api.patch(
        f"/api/agents/{agent.id}", {"mcp_servers": [server]}, format="json"
    )

    assert response.status_code == 200, response.content
    assert server_headers(Agent.objects.get(pk=agent.pk), server) == {
        "Authorization": "Bearer tok-team-s3cr3t-value"
    }


def test_a_credential_of_another_workspace_sends_no_header_at_run_time(alice, bob):
    team, other = two_workspaces(alice, bob)
    secret = make_credential(alice, name="prod", workspace=other)
    server = {"name": "x", "url": "https://x.example/mcp", "credential": str(secret.pk)}
    agent = AgentFactory(created_by=alice, workspace=team, mcp_servers=[server])

    assert server_headers(agent, server) is None
