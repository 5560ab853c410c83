"""Membership needs the invitee's consent, and caps count the workspaces an
account controls (issue 34, part 2, item 1)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.models import Invitation, Membership, Workspace

pytestmark = pytest.mark.django_db


def browser(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def api_of(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def invite(owner, workspace, who, role):
    return api_of(owner).post(
        f"/api/workspaces/{workspace.id}/members",
        {"user": who.username, "role": role},
        format="json",
    )


def test_someone_added_joins_only_once_they_accept(alice, bob):
    team = api_of(alice).post("/api/workspaces", {"name": "Ops"}, format="json")
    team = Workspace.objects.get(pk=team.json()["id"])

    assert invite(alice, team, bob, "owner").status_code == 202
    assert not Membership.objects.filter(workspace=team, user=bob).exists()

    client = browser(bob)
    header = client.get("/", follow=True).content.decode()
    assert 'id="invitations-link"' in header and "Invitations (1)" in header
    invitation = Invitation.objects.get(user=bob)
    response = client.post(
        "/invitations/", {"invitation": str(invitation.pk), "answer": "accept"}
    )

    assert response.status_code == 302
    membership = Membership.objects.get(workspace=team, user=bob)
    assert (membership.role, membership.invited_by) == ("owner", alice)
    assert not Invitation.objects.exists()
    assert AuditEvent.objects.filter(action="member.added", actor=bob).exists()


def test_a_declined_invitation_leaves_no_membership(alice, bob):
    team = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    invite(alice, team, bob, "viewer")

    response = browser(bob).post(
        "/invitations/",
        {"invitation": str(Invitation.objects.get().pk), "answer": "decline"},
    )

    assert response.status_code == 302
    assert not Membership.objects.filter(workspace=team, user=bob).exists()
    assert not Invitation.objects.exists()
    assert "No invitations" in browser(bob).get("/invitations/").content.decode()


def test_nobody_answers_anothers_invitation(alice, bob):
    team = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    invite(alice, team, bob, "viewer")

    response = browser(alice).post(
        "/invitations/",
        {"invitation": str(Invitation.objects.get().pk), "answer": "accept"},
    )

    assert response.status_code == 400
    assert not Membership.objects.filter(workspace=team, user=bob).exists()


def test_stepping_down_to_admin_makes_no_room_under_the_cap(alice, settings):
    """The attack: make workspaces, hand each to another owner, step down,
    make more. Workspaces one administers still count."""
    settings.WORKSPACES_PER_USER = 2
    client = api_of(alice)
    for name in ("One", "Two"):
        assert (
            client.post("/api/workspaces", {"name": name}, format="json").status_code
            == 201
        )
    Membership.objects.filter(user=alice, workspace__name="One").update(role="admin")

    response = client.post("/api/workspaces", {"name": "Three"}, format="json")

    assert response.status_code == 409
    assert not Workspace.objects.filter(name="Three").exists()


def test_an_invitee_at_their_cap_cannot_accept_to_own_one_more(alice, bob, settings):
    settings.WORKSPACES_PER_USER = 1
    api_of(bob).post("/api/workspaces", {"name": "Bob's"}, format="json")
    team = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    invite(alice, team, bob, "owner")

    response = browser(bob).post(
        "/invitations/",
        {"invitation": str(Invitation.objects.get().pk), "answer": "accept"},
    )

    assert response.status_code == 400
    assert "You control 1 workspaces" in response.content.decode()
    assert not Membership.objects.filter(workspace=team, user=bob).exists()


def test_making_a_member_admin_past_their_cap_is_refused(alice, bob, settings):
    settings.WORKSPACES_PER_USER = 1
    api_of(bob).post("/api/workspaces", {"name": "Bob's"}, format="json")
    team = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    bobs = Membership.objects.create(workspace=team, user=bob, role="viewer")

    response = api_of(alice).patch(
        f"/api/workspaces/{team.id}/members/{bobs.id}", {"role": "admin"}, format="json"
    )

    assert response.status_code == 409
    assert "bob controls 1 workspaces" in response.json()["error"]["message"]
    assert Membership.objects.get(pk=bobs.pk).role == "viewer"
