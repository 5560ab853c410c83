"""`/api/workspaces/:id/tokens`: an admin's browser makes and revokes the
workspace's tokens (`weir_wst_…`), which act as the workspace, capped at a
role, and outlive whoever made them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from agents.models import Agent
from config.accounts.tokens.models import ApiToken
from flows.audit.models import AuditEvent
from flows.models import Flow
from flows.workspaces.models import Membership, Workspace
from tests.factories import FlowFactory, UserFactory


@pytest.fixture
def team(db):
    return Workspace.objects.create(name="Team", slug="team")


@pytest.fixture
def people(team):
    """{role: user} for an admin, an editor and a viewer of `team`."""
    found = {}
    for role in ("admin", "editor", "viewer"):
        found[role] = UserFactory(username=f"team_{role}")
        Membership.objects.create(workspace=team, user=found[role], role=role)
    return found


@pytest.fixture
def team_flow(team, people):
    return FlowFactory(created_by=people["editor"], workspace=team, name="Team flow")


def browser(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def bearer(value: str) -> APIClient:
    """A script's client: the token, and CSRF checked as for a browser."""
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return client


def make(client, team, **body):
    body = {"name": "Deploy", "scopes": ["flows:read"], **body}
    return client.post(f"/api/workspaces/{team.id}/tokens", body, format="json")


def issue(team, maker, *scopes, role_cap="editor", days=30):
    return ApiToken.issue_for_workspace(
        team,
        maker,
        "CI",
        scopes or ["flows:read"],
        timezone.now() + timedelta(days=days),
        role_cap=role_cap,
    )[1]


def test_an_admin_makes_a_token_shown_once_and_listed_without_it(team, people):
    admin = browser(people["admin"])

    response = make(
        admin, team, scopes=["flows:read", "flows:write"], role_cap="runner"
    )

    assert response.status_code == 201
    body = response.json()
    assert body["token"].startswith("weir_wst_")
    assert (body["role_cap"], body["created_by"]) == ("runner", "team_admin")
    assert body["workspace"] == str(team.id)
    listed = admin.get(f"/api/workspaces/{team.id}/tokens").json()
    assert [token["name"] for token in listed] == ["Deploy"]
    assert body["token"] not in str(listed)
    event = AuditEvent.objects.get(action="token.created")
    assert (event.actor_label, event.changes["role_cap"]) == ("team_admin", "runner")
    assert body["token"] not in str(event.changes)


def test_a_workspace_token_never_chats(team, people):
    response = make(browser(people["admin"]), team, scopes=["agents:chat"])

    assert response.status_code == 400
    assert "scopes" in response.json()["error"]["details"]


def test_a_role_cap_above_editor_is_refused(team, people):
    response = make(browser(people["admin"]), team, role_cap="admin")

    assert response.status_code == 400
    assert "role_cap" in response.json()["error"]["details"]


def test_an_editor_may_not_list_or_make_them(team, people):
    editor = browser(people["editor"])

    assert editor.get(f"/api/workspaces/{team.id}/tokens").status_code == 403
    assert make(editor, team).status_code == 403
    assert not ApiToken.objects.exists()


def test_a_non_member_finds_no_workspace(team, people, bob):
    assert browser(bob).get(f"/api/workspaces/{team.id}/tokens").status_code == 404
    assert make(browser(bob), team).status_code == 404


def test_no_token_makes_workspace_tokens(team, people):
    value = issue(team, people["admin"], "flows:read", "flows:write")
    personal = ApiToken.issue(
        people["admin"],
        "mine",
        ["flows:write", "audit:read"],
        timezone.now() + timedelta(days=1),
        workspace=team,
    )[1]

    for token in (value, personal):
        response = make(bearer(token), team)
        assert response.status_code == 403
        assert response.json()["error"]["code"] == "permission_denied"
    assert ApiToken.objects.count() == 2


def test_it_reads_the_workspaces_flows_and_nothing_else(team, people, team_flow, bob):
    elsewhere = FlowFactory(created_by=bob)
    client = bearer(issue(team, people["admin"]))

    listed = client.get("/api/flows").json()

    assert [flow["name"] for flow in listed] == ["Team flow"]
    assert client.get(f"/api/flows/{elsewhere.id}").status_code == 404


def test_flows_read_cannot_patch(team, people, team_flow):
    client = bearer(issue(team, people["admin"], "flows:read"))

    response = client.patch(f"/api/flows/{team_flow.id}", {"name": "x"}, format="json")

    assert response.status_code == 403


def test_the_role_cap_narrows_its_scopes(team, people, team_flow):
    client = bearer(issue(team, people["admin"], "flows:write", role_cap="viewer"))

    response = client.patch(f"/api/flows/{team_flow.id}", {"name": "x"}, format="json")

    assert response.status_code == 403
    assert "a viewer" in response.json()["error"]["message"]


def test_a_bearer_post_needs_no_csrf_and_the_flow_has_no_person_behind_it(team, people):
    client = bearer(issue(team, people["admin"], "flows:read", "flows:write"))

    response = client.post("/api/flows", {"name": "From CI"}, format="json")

    assert response.status_code == 201
    flow = Flow.objects.get(name="From CI")
    assert (flow.workspace_id, flow.created_by_id) == (team.id, None)
    event = AuditEvent.objects.get(action="flow.created")
    assert event.actor_id is None
    assert event.actor_label.startswith("CI (workspace token weir_wst_")


def test_it_keeps_working_after_its_maker_leaves(team, people, team_flow):
    client = bearer(issue(team, people["admin"]))
    Membership.objects.filter(user=people["admin"]).delete()
    people["admin"].delete()

    assert client.get(f"/api/flows/{team_flow.id}").status_code == 200


def test_revoked_or_expired_is_401(team, people, team_flow):
    admin = browser(people["admin"])
    made = make(admin, team).json()
    expired = issue(team, people["admin"], days=-1)
    expired_id = ApiToken.objects.get(expires_at__lt=timezone.now()).pk

    assert admin.delete(f"/api/workspaces/{team.id}/tokens/{made['id']}").json() == {
        "success": True
    }

    for value in (made["token"], expired):
        response = bearer(value).get(f"/api/flows/{team_flow.id}")
        assert response.status_code == 401
        assert response["WWW-Authenticate"] == 'Bearer error="invalid_token"'
    assert AuditEvent.objects.filter(action="token.revoked").count() == 1
    listed = admin.get(f"/api/workspaces/{team.id}/tokens").json()
    assert [token["id"] for token in listed] == [str(expired_id)]


def test_an_admin_of_another_workspace_cannot_revoke_it(team, people, bob):
    made = make(browser(people["admin"]), team).json()
    theirs = Workspace.objects.create(name="Other", slug="other")
    Membership.objects.create(workspace=theirs, user=bob, role="admin")

    response = browser(bob).delete(f"/api/workspaces/{theirs.id}/tokens/{made['id']}")

    assert response.status_code == 404
    assert ApiToken.objects.get(pk=made["id"]).revoked_at is None


def test_workspace_tokens_are_not_anyones_personal_tokens(team, people):
    make(browser(people["admin"]), team)

    assert browser(people["admin"]).get("/api/tokens").json() == []


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
    settings.AGENT_USER_RATE = "1/min"
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
