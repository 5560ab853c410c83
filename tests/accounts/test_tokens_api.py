"""`/api/tokens`: a signed-in browser lists, creates and revokes its tokens."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.tokens.models import SCOPES, ApiToken


def create(api, **body):
    body = {"name": "CI", "scopes": ["flows:read"], **body}
    return api.post("/api/tokens", body, format="json")


def test_anonymous_gets_401(anon):
    assert anon.get("/api/tokens").status_code == 401
    assert anon.post("/api/tokens", {}, format="json").status_code == 401


def test_creating_shows_the_token_once_and_lists_it_without(api, alice):
    response = create(api, scopes=["flows:read", "runs:read"])

    assert response.status_code == 201
    body = response.json()
    assert body["token"].startswith("weir_pat_")
    assert body["prefix"] == body["token"][:13]
    assert body["scopes"] == ["flows:read", "runs:read"]
    assert body["workspace"] == str(alice.personal_workspace.id)
    listed = api.get("/api/tokens").json()
    assert [token["name"] for token in listed] == ["CI"]
    assert "token" not in listed[0]
    assert body["token"] not in str(listed)


def test_a_token_expires_in_30_days_by_default(api):
    expires_at = ApiToken.objects.get(pk=create(api).json()["id"]).expires_at

    assert abs(expires_at - (timezone.now() + timedelta(days=30))) < timedelta(
        minutes=1
    )


def test_an_expiry_past_the_maximum_is_refused(api, settings):
    settings.API_TOKEN_MAX_DAYS = 7
    too_late = (timezone.now() + timedelta(days=8)).isoformat()

    response = create(api, expires_at=too_late)

    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "expires_at": ["A token may live 7 days at most."]
    }
    assert not ApiToken.objects.exists()


def test_an_expiry_in_the_past_is_refused(api):
    response = create(api, expires_at=timezone.now().isoformat())

    assert response.status_code == 400
    assert "expires_at" in response.json()["error"]["details"]


@pytest.mark.parametrize("scopes", [[], ["flows:admin"], "flows:read"])
def test_scopes_must_come_from_the_list(api, scopes):
    response = create(api, scopes=scopes)

    assert response.status_code == 400
    assert "scopes" in response.json()["error"]["details"]
    assert not ApiToken.objects.exists()


def test_revoking_stops_the_token_and_hides_it(api, alice):
    value = create(api).json()["token"]
    token = ApiToken.objects.get()

    response = api.delete(f"/api/tokens/{token.id}")

    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert api.get("/api/tokens").json() == []
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    assert script.get("/api/flows").status_code == 401


def test_another_users_token_is_not_found(api, bob_api):
    token_id = create(bob_api).json()["id"]

    assert api.delete(f"/api/tokens/{token_id}").status_code == 404
    assert ApiToken.objects.get(pk=token_id).revoked_at is None


def test_no_token_can_create_a_token(api):
    value = create(api, scopes=list(SCOPES))
    script = APIClient()
    script.credentials(HTTP_AUTHORIZATION=f"Bearer {value.json()['token']}")

    response = script.post(
        "/api/tokens", {"name": "wider", "scopes": ["flows:write"]}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert ApiToken.objects.count() == 1
    assert script.get("/api/tokens").status_code == 403


def test_creating_and_revoking_are_audited_without_the_token(api, alice):
    value = create(api).json()["token"]
    api.delete(f"/api/tokens/{ApiToken.objects.get().id}")

    events = AuditEvent.objects.order_by("at")
    assert [event.action for event in events] == ["token.created", "token.revoked"]
    assert all(event.actor == alice for event in events)
    assert value[13:] not in str(list(events.values()))


def test_a_token_may_be_made_for_one_of_the_makers_team_workspaces(api, alice):
    from accounts.workspaces.models import Membership, Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")

    response = create(api, workspace=str(team.id))

    assert response.status_code == 201
    assert response.json()["workspace"] == str(team.id)
    event = AuditEvent.objects.get(action="token.created")
    assert event.changes["workspace"] == str(team.id)


def test_a_workspace_the_maker_is_not_in_is_refused(api, bob):
    response = create(api, workspace=str(bob.personal_workspace.id))

    assert response.status_code == 400
    assert "workspace" in response.json()["error"]["details"]
    assert not ApiToken.objects.exists()
