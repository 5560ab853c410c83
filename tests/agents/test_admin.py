"""Agents in Django admin: tools are limited to the workspace's flows.

`admin_client` is pytest-django's client signed in as a superuser.
"""

from __future__ import annotations

from agents.models import Agent
from tests.factories import AgentFactory, FlowFactory


def test_change_form_offers_only_the_workspaces_flows(admin_client, alice, bob):
    agent = AgentFactory(created_by=bob)
    FlowFactory(created_by=bob, name="Bob's tool")
    FlowFactory(created_by=alice, name="Alice's secret flow")

    response = admin_client.get(f"/admin/agents/agent/{agent.id}/change/")

    html = response.content.decode()
    assert response.status_code == 200
    assert "Bob&#x27;s tool (bob)" in html
    assert "Alice" not in html


def test_admin_saves_an_agent_with_its_workspaces_flows_as_tools(admin_client, bob):
    flow = FlowFactory(created_by=bob)

    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Helper",
            "model": "anthropic:claude-sonnet-4-5",
            "system_prompt": "Be useful.",
            "temperature": "0.3",
            "max_tokens": "800",
            "created_by": bob.pk,
            "tools": [str(flow.pk)],
            "is_active": "on",
        },
    )

    assert response.status_code == 302
    agent = Agent.objects.get(name="Helper")
    assert list(agent.tools.all()) == [flow]
    assert (agent.temperature, agent.max_tokens) == (0.3, 800)


def test_admin_refuses_a_model_string_without_a_known_provider(admin_client):
    response = admin_client.post(
        "/admin/agents/agent/add/",
        {"name": "Bad", "model": "gpt-4o", "temperature": "0.3", "max_tokens": "8"},
    )

    assert response.status_code == 200
    assert "provider:model-name" in response.content.decode()
    assert not Agent.objects.filter(name="Bad").exists()


def test_admin_refuses_tools_from_another_workspace(admin_client, alice, bob):
    bob_flow = FlowFactory(created_by=bob)

    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Helper",
            "model": "openai:gpt-4o-mini",
            "temperature": "0.5",
            "max_tokens": "512",
            "created_by": alice.pk,
            "tools": [str(bob_flow.pk)],
            "is_active": "on",
        },
    )

    assert response.status_code == 200
    assert "only use flows of its own workspace" in response.content.decode()
    assert not Agent.objects.filter(name="Helper").exists()


def test_conversation_admin_shows_the_messages(admin_client, api, echo_agent):
    reply = api.post(
        f"/api/agents/{echo_agent.id}/chat", {"content": "Hi admin"}, format="json"
    ).json()

    response = admin_client.get(
        f"/admin/agents/conversation/{reply['conversation_id']}/change/"
    )

    assert response.status_code == 200
    assert "Echo: Hi admin" in response.content.decode()
