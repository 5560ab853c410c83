"""Agents in Django admin: tools are limited to the workspace's flows.

`admin_client` is pytest-django's client signed in as a superuser.
"""

from __future__ import annotations

import json

from django.contrib.auth.models import Permission
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Membership, Workspace
from agents.models import Agent
from tests.factories import AgentFactory, FlowFactory, UserFactory, make_credential
from tests.flows.graphs import chain, code, trigger


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


def test_staff_cannot_put_an_agent_into_a_workspace_they_do_not_edit(alice, db):
    """Staff with agent rights (not superusers, not team members) made an agent
    in a team's workspace with the team's flows as tools and the team's key,
    shared it, and chatted: the team's flows ran (its credentials) for them."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    nodes, edges = chain(trigger(), code("report", "return {card: 'TEAM-SECRET'};"))
    report = FlowFactory(
        created_by=alice, workspace=team, name="Report", nodes=nodes, edges=edges
    )
    key = make_credential(alice, name="team_key", workspace=team)
    staff = UserFactory(username="agentstaff", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="agents", codename__endswith="_agent"
        )
    )
    admin = Client()
    admin.force_login(staff)

    admin.post(
        "/admin/agents/agent/add/",
        {
            "name": "Borrowed",
            "model": "echo:demo",
            "temperature": "0.3",
            "max_tokens": "800",
            "workspace": str(team.pk),
            "credential": str(key.pk),
            "tools": [str(report.pk)],
            "is_active": "on",
            "shared": "on",
        },
    )
    api = APIClient()
    api.force_login(staff)
    borrowed = Agent.objects.filter(name="Borrowed").first()
    chat = (
        api.post(
            f"/api/agents/{borrowed.id}/chat", {"content": "/tool Report {}"}, "json"
        ).content.decode()
        if borrowed
        else ""
    )

    assert "TEAM-SECRET" not in chat
    assert not Agent.objects.filter(workspace=team).exists()


def test_staff_who_edit_a_workspaces_agents_add_one_there(alice, db):
    team = Workspace.objects.create(name="Team", slug="team")
    staff = UserFactory(username="agentstaff", is_staff=True)
    Membership.objects.create(workspace=team, user=staff, role="editor")
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="agents", codename__endswith="_agent"
        )
    )
    tool = FlowFactory(created_by=alice, workspace=team)
    admin = Client()
    admin.force_login(staff)

    response = admin.post(
        "/admin/agents/agent/add/",
        {
            "name": "Team helper",
            "model": "echo:demo",
            "temperature": "0.3",
            "max_tokens": "800",
            "workspace": str(team.pk),
            "tools": [str(tool.pk)],
            "is_active": "on",
        },
    )

    assert response.status_code == 302
    agent = Agent.objects.get(name="Team helper")
    assert (agent.workspace, agent.created_by) == (team, staff)
    assert list(agent.tools.all()) == [tool]


def test_admin_sets_the_tools_that_ask_first_and_an_output_schema(admin_client, bob):
    asks, plain = (
        FlowFactory(created_by=bob, name="Refund"),
        FlowFactory(created_by=bob),
    )
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}

    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Careful",
            "model": "echo:demo",
            "temperature": "0.3",
            "max_tokens": "800",
            "created_by": bob.pk,
            "tools": [str(asks.pk), str(plain.pk)],
            "approval_flows": [str(asks.pk)],
            "output_schema": json.dumps(schema),
            "is_active": "on",
        },
    )

    assert response.status_code == 302, response.content.decode()[-2000:]
    agent = Agent.objects.get(name="Careful")
    assert list(agent.approval_flows.all()) == [asks]
    assert agent.output_schema == schema
    change = admin_client.get(f"/admin/agents/agent/{agent.id}/change/")
    assert "Tools that require approval" in change.content.decode()


def test_admin_refuses_asking_first_for_a_flow_that_is_no_tool(admin_client, bob):
    tool, other = FlowFactory(created_by=bob), FlowFactory(created_by=bob)

    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Odd",
            "model": "echo:demo",
            "temperature": "0.3",
            "max_tokens": "8",
            "created_by": bob.pk,
            "tools": [str(tool.pk)],
            "approval_flows": [str(other.pk)],
        },
    )

    assert response.status_code == 200
    assert (
        "Only the agent&#x27;s tool flows can ask first." in response.content.decode()
    )
    assert not Agent.objects.filter(name="Odd").exists()


def test_admin_refuses_an_output_schema_that_is_not_an_object(admin_client, bob):
    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Listy",
            "model": "echo:demo",
            "temperature": "0.3",
            "max_tokens": "8",
            "created_by": bob.pk,
            "output_schema": json.dumps({"type": "array"}),
        },
    )

    assert response.status_code == 200
    assert "root must be" in response.content.decode()
    assert not Agent.objects.filter(name="Listy").exists()


def test_admin_refuses_an_agent_nobody_could_see(admin_client):
    """No workspace, nobody who made it and not shared: nobody could chat
    with it, so the form says so instead of saving it."""
    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Orphan",
            "model": "openai:gpt-4o-mini",
            "temperature": "0.5",
            "max_tokens": "512",
            "is_active": "on",
        },
    )

    assert response.status_code == 200
    assert "visible to nobody" in response.content.decode()
    assert not Agent.objects.filter(name="Orphan").exists()


def test_admin_saves_a_shared_agent_of_no_workspace(admin_client, bob):
    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Everyone's",
            "model": "openai:gpt-4o-mini",
            "temperature": "0.5",
            "max_tokens": "512",
            "is_active": "on",
            "shared": "on",
        },
    )

    assert response.status_code == 302
    agent = Agent.objects.get(name="Everyone's")
    assert agent.workspace is None
    assert list(Agent.objects.for_user(bob)) == [agent]
