"""`/api/workspaces/:id/tokens`: an admin's browser makes and revokes the
workspace's tokens (`weir_wst_…`), which act as the workspace, capped at a
role, and outlive whoever made them."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership, Workspace
from flows.models import Flow
from tests.accounts.test_bearer import bearer
from tests.factories import FlowFactory, UserFactory


@pytest.fixture
def team_flow(team, people):
    return FlowFactory(created_by=people["editor"], workspace=team, name="Team flow")


def browser(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
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


def test_its_saves_count_against_its_workspaces_cap_not_every_tokens(
    team, people, team_flow, hold_slots
):
    other = Workspace.objects.create(name="Other", slug="other")
    Membership.objects.create(workspace=other, user=people["admin"], role="admin")
    theirs = FlowFactory(created_by=people["admin"], workspace=other)
    ours = bearer(issue(team, people["admin"], "flows:read", "flows:write"))
    others = bearer(issue(other, people["admin"], "flows:read", "flows:write"))
    hold_slots(workspace_id=team.pk)
    hold_slots(workspace_id=team.pk)

    def save(client, flow):
        body = {"name": "Saved", "nodes": flow.nodes}
        return client.patch(f"/api/flows/{flow.id}", body, format="json")

    assert save(ours, team_flow).status_code == 429
    assert save(others, theirs).status_code == 200


def test_the_list_shows_a_token_whose_maker_is_gone(team, people):
    issue(team, UserFactory(username="gone"))
    UserFactory(username="gone").delete()

    listed = browser(people["admin"]).get(f"/api/workspaces/{team.id}/tokens").json()

    assert [(token["name"], token["created_by"]) for token in listed] == [("CI", None)]
