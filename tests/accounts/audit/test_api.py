"""`GET /api/audit`: the audit log for staff, filtered, newest first, by cursor."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def staff():
    client = APIClient()
    client.force_login(UserFactory(username="root", is_staff=True))
    return client


def event(action, actor="alice", days_ago=0):
    return AuditEvent.objects.create(
        action=action,
        actor_label=actor,
        at=timezone.now() - timedelta(days=days_ago),
    )


def test_staff_read_every_event_newest_first(staff):
    event("auth.login", days_ago=2)
    event("flow.updated", days_ago=1)

    response = staff.get("/api/audit")

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [r["action"] for r in rows] == ["flow.updated", "auth.login"]
    assert rows[0]["actor"] == "alice"


def test_anyone_else_gets_403_and_anonymous_401(api, anon):
    event("auth.login")

    assert api.get("/api/audit").status_code == 403
    assert api.get("/api/audit").json()["error"]["code"] == "permission_denied"
    assert anon.get("/api/audit").status_code == 401


def test_filters_by_action_family_actor_and_time(staff):
    event("flow.updated", actor="alice", days_ago=3)
    event("flow.deleted", actor="bob", days_ago=1)
    event("auth.login", actor="bob", days_ago=4)
    since = (timezone.now() - timedelta(days=2)).date().isoformat()

    def actions(query):
        return [r["action"] for r in staff.get(f"/api/audit?{query}").json()["results"]]

    assert actions("action=flow") == ["flow.deleted", "flow.updated"]
    assert actions("action=flow.updated") == ["flow.updated"]
    assert actions("actor=bob") == ["flow.deleted", "auth.login"]
    assert actions(f"since={since}&action=flow") == ["flow.deleted"]


def test_a_bad_filter_is_a_400_naming_it(staff):
    response = staff.get("/api/audit?since=yesterday")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert "since" in response.json()["error"]["details"]


def test_cursor_paging_walks_every_event_once(staff):
    for days in range(5):
        event("auth.login", actor=f"user{days}", days_ago=days)

    seen, url = [], "/api/audit?page_size=2"
    while url:
        page = staff.get(url).json()
        seen += [r["actor"] for r in page["results"]]
        url = page["next"]

    assert seen == [f"user{days}" for days in range(5)]


def test_the_list_costs_the_same_queries_for_one_page_of_any_log(
    staff, django_assert_max_num_queries
):
    for days in range(60):
        event("auth.login", days_ago=days)

    with django_assert_max_num_queries(4):  # session, user, events (+ savepoint)
        response = staff.get("/api/audit")

    assert len(response.json()["results"]) == 50


@pytest.fixture
def team():
    from accounts.workspaces.models import Membership, Workspace

    workspace = Workspace.objects.create(name="Team", slug="team")
    for role in ("admin", "editor"):
        Membership.objects.create(
            workspace=workspace, user=UserFactory(username=f"team_{role}"), role=role
        )
    return workspace


def member(username):
    client = APIClient()
    client.force_login(UserFactory(username=username))
    return client


def test_a_workspace_admin_reads_its_events_only_filtered_by_cursor(team):
    for day in (3, 2, 1):
        AuditEvent.objects.create(
            action="flow.updated",
            actor_label="team_editor",
            workspace=team,
            at=timezone.now() - timedelta(days=day),
        )
    AuditEvent.objects.create(
        action="credential.created", actor_label="x", workspace=team
    )
    event("flow.updated")  # another workspace's, or none
    admin = member("team_admin")

    first = admin.get(
        f"/api/workspaces/{team.id}/audit",
        {"action": "flow", "actor": "team_editor", "page_size": 2},
    ).json()
    second = admin.get(first["next"]).json()

    assert [row["workspace"] for row in first["results"]] == [str(team.id)] * 2
    assert len(first["results"]) + len(second["results"]) == 3
    assert second["next"] is None


def test_a_member_without_the_right_gets_403_a_stranger_404(team, bob):
    url = f"/api/workspaces/{team.id}/audit"
    stranger = APIClient()
    stranger.force_login(bob)

    assert member("team_editor").get(url).status_code == 403
    assert stranger.get(url).status_code == 404


def test_a_bad_filter_is_400_naming_it(team):
    response = member("team_admin").get(
        f"/api/workspaces/{team.id}/audit", {"since": "yesterday"}
    )

    assert response.status_code == 400
    assert "since" in response.json()["error"]["details"]


def test_a_token_reads_it_with_audit_read_and_an_admin_maker_only(team):
    from accounts.tokens.models import ApiToken

    later = timezone.now() + timedelta(days=1)
    admin, editor = (UserFactory(username=f"team_{r}") for r in ("admin", "editor"))
    url = f"/api/workspaces/{team.id}/audit"

    def status(user, scopes):
        _, value = ApiToken.issue(user, "t", scopes, later, workspace=team)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
        return client.get(url).status_code

    assert status(admin, ["audit:read"]) == 200
    assert status(admin, ["flows:read"]) == 403
    assert status(editor, ["audit:read"]) == 403


def test_a_token_for_one_workspace_reads_no_other_workspaces_log(team):
    """An admin of two workspaces makes a token with audit:read for one: it
    reads that one's log only (the other is 404, as to a stranger), on the
    API and never through the staff log."""
    from accounts.tokens.models import ApiToken
    from accounts.workspaces.models import Membership, Workspace

    admin = UserFactory(username="team_admin")
    other = Workspace.objects.create(name="Other", slug="other")
    Membership.objects.create(workspace=other, user=admin, role="admin")
    AuditEvent.objects.create(action="flow.updated", actor_label="x", workspace=other)
    later = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue(admin, "t", ["audit:read"], later, workspace=team)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    own = client.get(f"/api/workspaces/{team.id}/audit")
    theirs = client.get(f"/api/workspaces/{other.id}/audit")
    everything = client.get("/api/audit")

    assert own.status_code == 200 and own.json()["results"] == []
    assert theirs.status_code == 404
    assert everything.status_code == 403


def test_a_staff_token_reads_its_own_workspaces_events_only(alice, bob):
    """A token reaches its own workspace only, everywhere: a staff member's
    token made for one workspace reads no other workspace's events and no
    sign-ins (which belong to no workspace)."""
    from accounts.models import Workspace
    from accounts.tokens.models import ApiToken
    from accounts.workspaces.personal import personal_workspace

    alice.is_staff = True
    alice.save(update_fields=["is_staff"])
    own = personal_workspace(alice)
    AuditEvent.objects.create(action="flow.updated", actor_label="alice", workspace=own)
    team = Workspace.objects.create(name="Bob's team", slug="bobs-team")
    AuditEvent.objects.create(action="flow.deleted", actor_label="bob", workspace=team)
    AuditEvent.objects.create(action="auth.login", actor_label="bob")
    _, value = ApiToken.issue(
        alice, "audit", ["audit:read"], timezone.now() + timedelta(days=1)
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    response = client.get("/api/audit")

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["action"], r["workspace"]) for r in rows] == [
        ("flow.updated", str(own.pk))
    ]
