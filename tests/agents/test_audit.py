"""Every change to an agent, through the API or the admin, is one audit event
in its workspace's log, written in the change's transaction, never a key."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership, Workspace
from agents.models import Agent
from tests.factories import AgentFactory, FlowFactory, UserFactory, make_credential

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    return Workspace.objects.create(name="Team", slug="team")


@pytest.fixture
def owner(team):
    user = UserFactory(username="team_admin")
    Membership.objects.create(workspace=team, user=user, role="admin")
    return user


@pytest.fixture
def token(team, owner):
    """(the token, a client sending it): the owner's, in the team workspace."""
    row, value = ApiToken.issue(
        owner,
        "CI",
        ["flows:read", "flows:write"],
        timezone.now() + timedelta(days=1),
        workspace=team,
    )
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return row, client


@pytest.fixture
def tools(team, owner):
    return {
        name: FlowFactory(created_by=owner, workspace=team, name=name)
        for name in ("Lookup", "Refund", "Ship")
    }


def events(action="agent"):
    return list(AuditEvent.objects.filter(action__startswith=action).order_by("at"))


def make(client, team, **fields):
    body = {"name": "Support", "model": "echo:demo", "workspace": str(team.pk)}
    response = client.post("/api/agents", {**body, **fields}, format="json")
    assert response.status_code == 201, response.content
    return Agent.objects.get(pk=response.json()["id"])


def test_create_patch_delete_each_add_one_event_with_actor_and_token(
    team, owner, token, tools
):
    row, client = token

    agent = make(client, team, tool_flows=[str(tools["Lookup"].pk)])
    assert len(events()) == 1
    patched = client.patch(
        f"/api/agents/{agent.pk}", {"name": "Helpdesk"}, format="json"
    )
    assert patched.status_code == 200
    assert len(events()) == 2
    assert client.delete(f"/api/agents/{agent.pk}").status_code == 200

    created, updated, deleted = events()
    assert [e.action for e in events()] == [
        "agent.created",
        "agent.updated",
        "agent.deleted",
    ]
    for event in (created, updated, deleted):
        assert (event.actor, event.actor_label) == (owner, "team_admin")
        assert event.token_label == row.prefix
        assert event.workspace_id == team.pk
        assert event.target_id == str(agent.pk)
    assert created.changes == {"model": "echo:demo", "tools": ["Lookup"]}
    assert updated.changes == {"fields": ["name"]}
    assert updated.target_label == "Helpdesk"


def test_an_update_names_fields_and_flows_never_a_key(team, owner, token, tools):
    _, client = token
    key = make_credential(owner, name="key", workspace=team)
    server_key = make_credential(
        owner,
        name="mcp",
        kind="header",
        workspace=team,
        secrets={"name": "X-Api-Key", "value": "mcp-s3cr3t-value"},
    )
    agent = make(
        client,
        team,
        tool_flows=[str(tools["Lookup"].pk), str(tools["Refund"].pk)],
        approval_flows=[str(tools["Refund"].pk)],
    )

    response = client.patch(
        f"/api/agents/{agent.pk}",
        {
            "credential": str(key.pk),
            "tool_flows": [str(tools["Lookup"].pk), str(tools["Ship"].pk)],
            "approval_flows": [str(tools["Ship"].pk)],
            "mcp_servers": [
                {
                    "name": "docs",
                    "url": "https://mcp.example",
                    "credential": str(server_key.pk),
                }
            ],
            "system_prompt": "Be kind.",
        },
        format="json",
    )

    assert response.status_code == 200, response.content
    [updated] = events("agent.updated")
    assert updated.changes == {
        "fields": [
            "approval_flows",
            "credential",
            "mcp_servers",
            "system_prompt",
            "tools",
        ],
        "tools": {"added": ["Ship"], "removed": ["Refund"]},
        "approval_flows": {"added": ["Ship"], "removed": ["Refund"]},
    }
    browser = Client()
    browser.force_login(owner)
    listed = browser.get(f"/api/workspaces/{team.pk}/audit").content.decode()
    dumped = json.dumps([e.as_log() for e in events()]) + listed
    assert "agent.updated" in listed
    for secret in ("tok-key-s3cr3t-value", "mcp-s3cr3t-value", str(key.pk), "Be kind"):
        assert secret not in dumped


def test_a_patch_that_changes_nothing_records_nothing(team, owner, token):
    _, client = token
    agent = make(client, team)

    response = client.patch(
        f"/api/agents/{agent.pk}",
        {"name": "Support", "model": "echo:demo"},
        format="json",
    )

    assert response.status_code == 200
    assert [e.action for e in events()] == ["agent.created"]


def test_a_refused_patch_records_nothing(team, owner, token):
    _, client = token
    agent = make(client, team)

    response = client.patch(f"/api/agents/{agent.pk}", {"name": " "}, format="json")

    assert response.status_code == 400
    assert [e.action for e in events()] == ["agent.created"]


def failing_record(*args, **kwargs):
    raise RuntimeError("the audit log is down")


def test_an_error_after_the_save_keeps_neither(team, owner, token, monkeypatch):
    _, client = token
    agent = make(client, team)
    monkeypatch.setattr("agents.audit.record", failing_record)

    # The API answers its 500 envelope; the change went with the event.
    assert (
        client.post(
            "/api/agents", {"name": "Other", "model": "echo:demo"}, format="json"
        )
    ).status_code == 500
    assert (
        client.patch(f"/api/agents/{agent.pk}", {"name": "Renamed"}, format="json")
    ).status_code == 500
    assert client.delete(f"/api/agents/{agent.pk}").status_code == 500

    assert list(Agent.objects.values_list("name", flat=True)) == ["Support"]
    assert [e.action for e in events()] == ["agent.created"]


def test_the_events_show_on_the_workspace_audit_page_and_api(team, owner, token):
    _, client = token
    agent = make(client, team)
    client.patch(f"/api/agents/{agent.pk}", {"description": "New"}, format="json")
    browser = Client()
    browser.force_login(owner)

    html = browser.get(f"/workspaces/{team.pk}/audit/").content.decode()
    listed = browser.get(f"/api/workspaces/{team.pk}/audit?action=agent").json()

    assert "agent.created" in html and "agent.updated" in html
    assert "agent: Support" in html
    assert [row["action"] for row in listed["results"]] == [
        "agent.updated",
        "agent.created",
    ]


def test_the_admin_records_add_change_no_change_and_delete(admin_client, admin_user):
    tool = FlowFactory(created_by=admin_user, name="Lookup")
    form = {
        "name": "Helper",
        "model": "echo:demo",
        "temperature": "0.3",
        "max_tokens": "800",
        "created_by": admin_user.pk,
        "is_active": "on",
    }

    assert admin_client.post("/admin/agents/agent/add/", form).status_code == 302
    agent = Agent.objects.get(name="Helper")
    url = f"/admin/agents/agent/{agent.pk}/change/"
    assert admin_client.post(url, {**form, "tools": [str(tool.pk)]}).status_code == 302
    # An admin's change is a new version, so an API client editing the version
    # it loaded before gets 412 instead of saving over it.
    assert Agent.objects.get(pk=agent.pk).version == 2
    form["tools"] = [str(tool.pk)]
    assert admin_client.post(url, form).status_code == 302  # nothing changed
    assert Agent.objects.get(pk=agent.pk).version == 2
    delete = f"/admin/agents/agent/{agent.pk}/delete/"
    assert admin_client.post(delete, {"post": "yes"}).status_code == 302

    created, updated, deleted = events()
    assert (created.action, updated.action, deleted.action) == (
        "agent.created",
        "agent.updated",
        "agent.deleted",
    )
    assert updated.changes == {
        "fields": ["tools"],
        "tools": {"added": ["Lookup"], "removed": []},
    }
    assert {e.actor for e in events()} == {admin_user}
    assert {e.workspace_id for e in events()} == {agent.workspace_id}


def test_the_admins_bulk_delete_records_one_event_for_each(admin_client):
    agents = [AgentFactory(shared=False, created_by=UserFactory()) for _ in range(2)]

    response = admin_client.post(
        "/admin/agents/agent/",
        {
            "action": "delete_selected",
            "_selected_action": [str(a.pk) for a in agents],
            "post": "yes",
        },
    )

    assert response.status_code == 302
    assert sorted(e.target_id for e in events("agent.deleted")) == sorted(
        str(a.pk) for a in agents
    )
    assert len(events()) == 2
    assert not Agent.objects.exists()


def test_an_error_after_an_admin_save_keeps_neither(admin_client, monkeypatch):
    agent = AgentFactory(name="Helper", shared=False, created_by=UserFactory())
    form = {
        "name": "Renamed",
        "model": "echo:demo",
        "temperature": "0.7",
        "max_tokens": "1024",
        "created_by": agent.created_by_id,
        "workspace": agent.workspace_id,
        "is_active": "on",
    }
    monkeypatch.setattr("agents.audit.record", failing_record)

    with pytest.raises(RuntimeError):
        admin_client.post(f"/admin/agents/agent/{agent.pk}/change/", form)

    agent.refresh_from_db()
    assert agent.name == "Helper"
    assert events() == []
