"""Workspace tokens (`weir_wst_…`) where a view asked for a person: the
reviewer's findings R19-R21 (docs/security.md, Round 4). A workspace token's
caller has no user id; what it makes, counts and reads is its workspace's."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Workspace
from agents.models import Agent
from tests.accounts.test_bearer import bearer
from tests.factories import FlowFactory


def test_an_agent_made_with_a_token_lands_in_the_tokens_workspace(team, people):
    """A token reaches one workspace: an agent it makes is that workspace's,
    made as the role there allows. A personal token for the team put the
    agent in its maker's personal workspace (outside the token's reach), and
    a workspace token's request was a 500."""
    later = timezone.now() + timedelta(days=1)
    scopes = ["flows:read", "flows:write"]
    _, editors = ApiToken.issue(people["editor"], "p", scopes, later, workspace=team)
    _, viewers = ApiToken.issue(people["viewer"], "p", scopes, later, workspace=team)
    _, workspace_token = ApiToken.issue_for_workspace(
        team, people["admin"], "w", scopes, later, "editor"
    )
    new = {"model": "echo:demo"}

    by_editor = bearer(editors).post("/api/agents", {**new, "name": "E"}, format="json")
    by_workspace = bearer(workspace_token).post(
        "/api/agents", {**new, "name": "W"}, format="json"
    )
    by_viewer = bearer(viewers).post("/api/agents", {**new, "name": "V"}, format="json")

    assert (by_editor.status_code, by_workspace.status_code) == (201, 201)
    assert by_viewer.status_code == 403
    made = {agent.name: agent for agent in Agent.objects.all()}
    assert made["E"].workspace == team and made["E"].created_by == people["editor"]
    assert made["W"].workspace == team and made["W"].created_by is None
    assert "V" not in made


def test_one_workspace_tokens_load_does_not_throttle_another_workspaces(
    team, people, hold_slots
):
    """Every workspace token's user has no id: saves and MCP calls counted
    their synchronous work under one shared "user" (`owner:None`), so one
    workspace's token at its cap throttled every other workspace's token."""
    other = Workspace.objects.create(name="Other", slug="other")
    later = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue_for_workspace(
        other, people["admin"], "w", ["flows:read", "flows:write"], later, "editor"
    )
    flow = FlowFactory(created_by=None, workspace=other, name="Other's flow")
    hold_slots(owner_id=None)  # two requests of some other workspace's token
    hold_slots(owner_id=None)

    response = bearer(value).patch(
        f"/api/flows/{flow.id}", {"nodes": flow.nodes, "name": "saved"}, format="json"
    )

    assert response.status_code == 200, response.content


def test_workspace_tokens_do_not_share_one_chat_rate(team, people, settings):
    """Test connection counts against the caller's chat rate: all workspace
    tokens (no user id) counted as one user, across workspaces."""
    # A window of a day: two calls a minute's fixed window split between its
    # end and the next one's start both passed (seen once in CI).
    settings.AGENT_USER_RATE = "1/day"
    other = Workspace.objects.create(name="Other", slug="other")
    later = timezone.now() + timedelta(days=1)
    scopes = ["flows:read", "flows:write"]
    _, ours = ApiToken.issue_for_workspace(
        team, people["admin"], "w", scopes, later, "editor"
    )
    _, theirs = ApiToken.issue_for_workspace(
        other, people["admin"], "w", scopes, later, "editor"
    )
    body = {"model": "echo:demo"}

    first = bearer(ours).post("/api/agents/test-connection", body, format="json")
    again = bearer(ours).post("/api/agents/test-connection", body, format="json")
    other_workspace = bearer(theirs).post(
        "/api/agents/test-connection", body, format="json"
    )

    assert (first.status_code, again.status_code) == (200, 429)
    assert other_workspace.status_code == 200


def test_a_viewer_workspace_token_reads_an_agents_usage_as_its_own(team, people):
    """Usage shows a non-editor their own conversations; a workspace token has
    none (it never chats), and its request was a 500."""
    from tests.factories import AgentFactory

    agent = AgentFactory(created_by=people["editor"], workspace=team, shared=False)
    later = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue_for_workspace(
        team, people["admin"], "w", ["flows:read"], later, "viewer"
    )

    response = bearer(value).get(f"/api/agents/{agent.id}/usage")

    assert response.status_code == 200, response.content
    assert response.json()["totals"]["messages"] == 0


def test_a_workspace_tokens_session_is_what_the_schema_says(team, people):
    """R24: `/api/auth/session` for a workspace token (no user) answers as
    the OpenAPI schema says (checked by tests/openapi_contract.py): no user
    id, and the token's one workspace."""
    later = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue_for_workspace(
        team, people["admin"], "w", ["flows:read"], later, "viewer"
    )

    response = bearer(value).get("/api/auth/session")

    assert response.status_code == 200
    assert response.json()["id"] is None
    assert [w["id"] for w in response.json()["workspaces"]] == [str(team.pk)]
