"""`/api/workspaces` and its members: who may list, make, rename, delete,
add, re-role and remove, and the last owner who cannot go."""

from __future__ import annotations

import pytest

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def members_url(workspace, membership=None):
    base = f"/api/workspaces/{workspace.id}/members"
    return f"{base}/{membership.id}" if membership else base


def test_the_list_holds_the_personal_workspace_with_the_owner_role(api, alice):
    body = api.get("/api/workspaces").json()

    assert [(w["name"], w["personal"], w["role"]) for w in body] == [
        ("alice", True, "owner")
    ]


def test_a_member_lists_the_workspace_with_their_role(as_member, team):
    body = as_member("runner").get("/api/workspaces").json()

    assert {(w["name"], w["role"]) for w in body} == {
        ("team_runner", "owner"),
        ("Team", "runner"),
    }


def test_creating_a_workspace_makes_the_creator_its_owner(api, alice):
    response = api.post("/api/workspaces", {"name": "Ops team"}, format="json")

    assert response.status_code == 201
    assert (response.json()["slug"], response.json()["role"]) == ("ops-team", "owner")
    workspace = Workspace.objects.get(pk=response.json()["id"])
    assert workspace.memberships.get().user == alice
    assert AuditEvent.objects.filter(action="workspace.created").count() == 1


def test_no_token_creates_a_workspace_even_with_flows_write(alice):
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    from accounts.tokens.models import ApiToken

    _, value = ApiToken.issue(
        alice, "CI", ["flows:write"], timezone.now() + timedelta(days=1)
    )
    client = APIClient(enforce_csrf_checks=True)
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    response = client.post("/api/workspaces", {"name": "Ops"}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert not Workspace.objects.filter(name="Ops").exists()


def test_a_workspace_token_lists_only_its_workspace_with_its_role_cap(team, members):
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    from accounts.tokens.models import ApiToken

    _, value = ApiToken.issue_for_workspace(
        team,
        members["admin"],
        "CI",
        ["flows:read"],
        timezone.now() + timedelta(days=1),
        role_cap="runner",
    )
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    body = client.get("/api/workspaces").json()

    assert [(w["name"], w["role"]) for w in body] == [("Team", "runner")]


def test_only_an_owner_renames_the_workspace(as_member, team):
    refused = as_member("admin").patch(
        f"/api/workspaces/{team.id}", {"name": "X"}, format="json"
    )
    renamed = as_member("owner").patch(
        f"/api/workspaces/{team.id}", {"name": "Core"}, format="json"
    )

    assert refused.status_code == 403
    assert renamed.status_code == 200
    assert Workspace.objects.get(pk=team.pk).name == "Core"
    event = AuditEvent.objects.get(action="workspace.renamed")
    assert event.changes == {"from": "Team", "to": "Core"}


def test_a_non_member_finds_no_workspace(as_member, team):
    response = as_member(None).get(f"/api/workspaces/{team.id}/members")

    assert response.status_code == 404
    assert as_member(None).delete(f"/api/workspaces/{team.id}").status_code == 404


def test_a_personal_workspace_cannot_be_deleted(api, alice):
    workspace = Workspace.objects.get(personal_of=alice)

    response = api.delete(f"/api/workspaces/{workspace.id}")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert Workspace.objects.filter(pk=workspace.pk).exists()


def test_a_workspace_holding_flows_cannot_be_deleted(as_member, team, team_flow):
    response = as_member("owner").delete(f"/api/workspaces/{team.id}")

    assert response.status_code == 409
    assert response.json()["error"]["details"]["flows"] == 1


def test_an_owner_deletes_an_empty_workspace(as_member, team):
    response = as_member("owner").delete(f"/api/workspaces/{team.id}")

    assert response.status_code == 200
    assert not Workspace.objects.filter(pk=team.pk).exists()
    assert AuditEvent.objects.filter(action="workspace.deleted").count() == 1


def test_an_admin_invites_an_existing_user_by_e_mail(as_member, team):
    carol = UserFactory(username="carol", email="carol@example.com")

    response = as_member("admin").post(
        members_url(team),
        {"user": "CAROL@example.com", "role": "viewer"},
        format="json",
    )

    assert response.status_code == 202
    assert response.json()["invited"] is True
    assert not Membership.objects.filter(workspace=team, user=carol).exists()
    assert carol.invitations.get().role == "viewer"
    assert AuditEvent.objects.filter(action="member.invited").count() == 1


def test_inviting_an_unknown_user_answers_as_for_a_known_one(as_member, team):
    UserFactory(username="carol")

    unknown = as_member("admin").post(
        members_url(team), {"user": "nobody", "role": "viewer"}, format="json"
    )
    known = as_member("admin").post(
        members_url(team), {"user": "carol", "role": "viewer"}, format="json"
    )

    assert (unknown.status_code, unknown.json()) == (known.status_code, known.json())


def test_inviting_a_member_again_changes_nothing(as_member, members, team):
    response = as_member("admin").post(
        members_url(team), {"user": "team_viewer", "role": "editor"}, format="json"
    )

    assert response.status_code == 202
    assert Membership.objects.get(user=members["viewer"], workspace=team).role == (
        "viewer"
    )
    assert not members["viewer"].invitations.exists()


def test_an_editor_may_not_add_members(as_member, team):
    UserFactory(username="carol")

    response = as_member("editor").post(
        members_url(team), {"user": "carol", "role": "viewer"}, format="json"
    )

    assert response.status_code == 403
    assert not Membership.objects.filter(user__username="carol", workspace=team)


def test_only_an_owner_makes_an_owner(as_member, members, team):
    viewer = Membership.objects.get(user=members["viewer"], workspace=team)

    refused = as_member("admin").patch(
        members_url(team, viewer), {"role": "owner"}, format="json"
    )
    done = as_member("owner").patch(
        members_url(team, viewer), {"role": "owner"}, format="json"
    )

    assert refused.status_code == 403
    assert done.status_code == 200
    assert Membership.objects.get(pk=viewer.pk).role == "owner"
    event = AuditEvent.objects.get(action="member.role_changed")
    assert (event.changes["from"], event.changes["to"]) == ("viewer", "owner")


def test_the_last_owner_can_be_neither_demoted_nor_removed(as_member, members, team):
    owner = Membership.objects.get(user=members["owner"], workspace=team)

    demoted = as_member("owner").patch(
        members_url(team, owner), {"role": "admin"}, format="json"
    )
    left = as_member("owner").delete(members_url(team, owner))

    assert demoted.status_code == left.status_code == 409
    assert demoted.json()["error"]["code"] == "conflict"
    assert Membership.objects.get(pk=owner.pk).role == "owner"


def test_a_viewer_may_leave_but_not_remove_others(as_member, members, team):
    mine = Membership.objects.get(user=members["viewer"], workspace=team)
    theirs = Membership.objects.get(user=members["runner"], workspace=team)

    assert as_member("viewer").delete(members_url(team, theirs)).status_code == 403
    assert as_member("viewer").delete(members_url(team, mine)).status_code == 200
    assert not Membership.objects.filter(pk=mine.pk).exists()
    assert AuditEvent.objects.filter(action="member.removed").count() == 1


def test_every_member_sees_the_member_list(as_member, team):
    body = as_member("viewer").get(members_url(team)).json()

    assert [m["role"] for m in body] == ["viewer", "runner", "editor", "admin", "owner"]


def test_the_session_lists_the_users_workspaces_personal_first(as_member, team):
    body = as_member("editor").get("/api/auth/session").json()

    assert [(w["name"], w["personal"], w["role"]) for w in body["workspaces"]] == [
        ("team_editor", True, "owner"),
        ("Team", False, "editor"),
    ]
    assert body["username"] == "team_editor"
