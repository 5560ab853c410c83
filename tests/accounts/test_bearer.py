"""Bearer tokens on the API: 401 for any bad token, scopes narrow, no CSRF."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.tokens import text
from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership, Workspace
from tests.factories import FlowFactory, FlowRunFactory

CHALLENGE = 'Bearer error="invalid_token"'


def bearer(value: str) -> APIClient:
    """A script's client: the token, and CSRF checked as for a browser."""
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return client


def issue(user, *scopes, days=30):
    expires_at = timezone.now() + timedelta(days=days)
    return ApiToken.issue(user, "script", scopes or ["flows:read"], expires_at)


def assert_invalid_token(response):
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == CHALLENGE
    assert response.json()["error"]["code"] == "invalid_token"


def test_a_token_reads_its_makers_flows(alice, alice_flow):
    _, value = issue(alice)

    response = bearer(value).get(f"/api/flows/{alice_flow.id}")

    assert response.status_code == 200
    assert response.json()["name"] == "Alice's flow"


def test_a_bad_checksum_is_refused_without_a_query(
    alice, alice_flow, django_assert_num_queries
):
    _, value = issue(alice)
    mistyped = value[:-1] + ("a" if value[-1] != "a" else "b")
    client = bearer(mistyped)

    with django_assert_num_queries(0):
        response = client.get(f"/api/flows/{alice_flow.id}")

    assert_invalid_token(response)


def test_an_unknown_token_is_refused(db):
    assert_invalid_token(bearer(text.new_token()).get("/api/flows"))


def test_an_expired_token_is_refused(alice):
    token, value = issue(alice)
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now())

    assert_invalid_token(bearer(value).get("/api/flows"))


def test_a_revoked_token_is_refused(alice):
    token, value = issue(alice)
    token.revoke()

    assert_invalid_token(bearer(value).get("/api/flows"))


def test_an_inactive_users_token_is_refused(alice):
    _, value = issue(alice)
    alice.is_active = False
    alice.save()

    assert_invalid_token(bearer(value).get("/api/flows"))


def test_a_bad_token_never_falls_back_to_the_session_cookie(alice):
    client = bearer(text.new_token())
    client.force_login(alice)

    assert_invalid_token(client.get("/api/flows"))


def test_a_read_token_cannot_change_a_flow(alice, alice_flow):
    _, value = issue(alice, "flows:read")

    response = bearer(value).patch(
        f"/api/flows/{alice_flow.id}", {"name": "renamed"}, format="json"
    )

    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission_denied"
    assert "flows:write" in error["message"]
    assert error["details"] == {"required_scopes": ["flows:write"]}
    alice_flow.refresh_from_db()
    assert alice_flow.name == "Alice's flow"


def test_a_bearer_post_needs_no_csrf_token(alice):
    _, value = issue(alice, "flows:write")

    response = bearer(value).post("/api/flows", {"name": "from CI"}, format="json")

    assert response.status_code == 201
    assert alice.flows.get().name == "from CI"


def test_a_cookie_post_without_csrf_is_still_refused(alice):
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/api/flows", {"name": "x"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "csrf_failed"
    assert not alice.flows.exists()


def test_last_use_is_written_once_for_two_calls_within_a_minute(alice):
    token, value = issue(alice)
    client = bearer(value)

    client.get("/api/flows", REMOTE_ADDR="192.0.2.7")
    token.refresh_from_db()
    first = token.last_used_at
    client.get("/api/flows", REMOTE_ADDR="192.0.2.8")
    token.refresh_from_db()

    assert first is not None
    assert token.last_used_at == first
    assert token.last_used_ip == "192.0.2.7"


@pytest.fixture
def staff(alice):
    alice.is_staff = True
    alice.save()
    return alice


def test_a_staff_token_reads_the_audit_log_only_with_its_scope(staff):
    _, without = issue(staff, "flows:read")
    _, with_scope = issue(staff, "audit:read")

    assert bearer(without).get("/api/audit").status_code == 403
    assert bearer(with_scope).get("/api/audit").status_code == 200


def test_another_scheme_is_left_to_the_session(alice):
    client = APIClient()
    client.force_login(alice)

    response = client.get("/api/flows", HTTP_AUTHORIZATION="Basic YTpi")

    assert response.status_code == 200


def test_a_run_s_data_needs_the_runs_read_scope(alice, alice_flow):
    run = FlowRunFactory(flow=alice_flow, input={"card": "4242"})
    _, flows_read = issue(alice, "flows:read")
    _, runs_read = issue(alice, "runs:read")

    # As a viewer does: that the run happened and how it ended, no data.
    refused = bearer(flows_read).get(f"/api/runs/{run.id}")
    allowed = bearer(runs_read).get(f"/api/runs/{run.id}")

    assert refused.status_code == 200
    assert (refused.json()["status"], refused.json()["input"]) == ("succeeded", None)
    assert "4242" not in refused.content.decode()
    assert allowed.status_code == 200
    assert allowed.json()["input"] == {"card": "4242"}
    assert bearer(flows_read).get("/api/runs").status_code == 200


def test_a_run_token_runs_a_flow_without_csrf(alice, alice_flow):
    _, value = issue(alice, "flows:run")

    response = bearer(value).post(
        f"/api/flows/{alice_flow.id}/run", {"name": "Ada"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["success"] is True
    assert alice_flow.runs.count() == 1


def test_a_change_made_with_a_token_is_audited_with_the_token(alice):
    token, value = issue(alice, "flows:write")

    bearer(value).post("/api/flows", {"name": "from CI"}, format="json")

    event = AuditEvent.objects.get(action="flow.created")
    assert event.actor == alice
    assert event.token_label == token.prefix
    assert value[13:] not in str(event.as_log())


def test_a_token_reaches_only_its_own_workspace(alice, alice_flow):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")
    team_flow = FlowFactory(created_by=alice, workspace=team, name="Team flow")
    _, value = issue(alice, "flows:read", "flows:write")
    session = APIClient()
    session.force_login(alice)

    listed = bearer(value).get("/api/flows").json()
    seen_by_session = session.get("/api/flows").json()

    assert [flow["name"] for flow in listed] == ["Alice's flow"]
    assert {flow["name"] for flow in seen_by_session} == {
        "Alice's flow",
        "Team flow",
    }
    assert bearer(value).get(f"/api/flows/{team_flow.id}").status_code == 404
    renamed = bearer(value).patch(
        f"/api/flows/{team_flow.id}", {"name": "taken"}, format="json"
    )
    assert renamed.status_code == 404
    team_flow.refresh_from_db()
    assert team_flow.name == "Team flow"


def test_the_session_probe_shows_a_token_only_its_workspace(alice):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")
    _, value = issue(alice)

    body = bearer(value).get("/api/auth/session").json()

    assert [workspace["name"] for workspace in body["workspaces"]] == ["alice"]


def test_a_credentials_read_token_lists_credentials_but_reads_no_flow_or_run(
    alice, alice_flow
):
    FlowRunFactory(flow=alice_flow)
    _, value = issue(alice, "credentials:read")
    script = bearer(value)

    assert script.get("/api/credentials").status_code == 200
    for url in (
        f"/api/flows/{alice_flow.id}",
        "/api/runs",
        f"/api/flows/{alice_flow.id}/export",
    ):
        response = script.get(url)
        assert response.status_code == 403, url
        assert response.json()["error"]["code"] == "permission_denied"


def test_a_flows_read_token_also_lists_credentials(alice):
    _, value = issue(alice, "flows:read")

    assert bearer(value).get("/api/credentials").status_code == 200


def test_a_token_reads_no_conversation_with_another_workspaces_agent(alice):
    """A token reaches its own workspace only (R5): its maker's chats with a
    team's agent, whose tool results are the team's flow outputs, are not in
    its conversation list or detail, nor can it decide their tool calls."""
    from agents.models import Conversation, Message
    from tests.factories import AgentFactory

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="runner")
    agent = AgentFactory(created_by=None, workspace=team, shared=False)
    chat = Conversation.objects.create(agent=agent, user=alice, title="team chat")
    Message.objects.create(conversation=chat, role="tool", content="TEAM-OUTPUT")
    own = AgentFactory(created_by=alice, shared=False)
    mine = Conversation.objects.create(agent=own, user=alice, title="mine")
    _, value = issue(alice, "agents:chat")
    session = APIClient()
    session.force_login(alice)

    listed = bearer(value).get("/api/conversations").json()["results"]
    detail = bearer(value).get(f"/api/conversations/{chat.id}")

    assert [c["id"] for c in listed] == [str(mine.id)]
    assert detail.status_code == 404
    assert "TEAM-OUTPUT" not in detail.content.decode()
    assert session.get(f"/api/conversations/{chat.id}").status_code == 200


def test_a_right_no_scope_grants_is_refused_as_browser_only(alice):
    """Managing members is no scope's right: the refusal says to sign in with a
    browser, not that the token lacks a scope named by nothing."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    expires_at = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue(alice, "script", ["flows:write"], expires_at, team)

    response = bearer(value).post(
        f"/api/workspaces/{team.id}/members",
        {"user": alice.username, "role": "viewer"},
        format="json",
    )

    assert response.status_code == 403
    error = response.json()["error"]
    assert error["message"] == "API tokens cannot do this; sign in with a browser."
    assert "details" not in error
