"""Invitations reach the person meant, from someone who may still send them
(docs/security.md, S21 and S22; a review of `main`, 2026-12-06)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import Invitation, Membership, Workspace
from accounts.oidc.people import account_for
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def signed_in(user, client_class=APIClient):
    client = client_class()
    client.force_login(user)
    return client


def team_of(owner) -> Workspace:
    made = signed_in(owner).post("/api/workspaces", {"name": "Ops"}, format="json")
    return Workspace.objects.get(pk=made.json()["id"])


def answer(user, invitation, choice="accept"):
    return signed_in(user, Client).post(
        "/invitations/", {"invitation": str(invitation.pk), "answer": choice}
    )


def test_an_address_typed_to_invite_reaches_its_owner_not_a_username_like_it(
    alice, settings
):
    """Single sign-on names a new account by the provider's
    `preferred_username`, which its user may choose: Mallory signed in as
    `bob@corp.example`, and an invitation typed as Bob's address went to her."""
    settings.OIDC_CREATE_USERS = True
    bob = UserFactory(username="bob", email="bob@corp.example")
    mallory = account_for(
        {
            "email": "mallory@elsewhere.example",
            "email_verified": True,
            "preferred_username": "bob@corp.example",
        }
    )
    assert mallory.username == "bob@corp.example"
    team = team_of(alice)

    invited = signed_in(alice).post(
        f"/api/workspaces/{team.id}/members",
        {"user": "bob@corp.example", "role": "admin"},
        format="json",
    )

    assert invited.status_code == 202
    assert Invitation.objects.get(workspace=team).user == bob


def test_an_invitation_left_by_a_removed_admin_cannot_be_accepted(alice):
    rogue, sock = UserFactory(username="rogue"), UserFactory(username="sock")
    team = team_of(alice)
    rogue_membership = Membership.objects.create(
        workspace=team, user=rogue, role="admin"
    )
    sent = signed_in(rogue).post(
        f"/api/workspaces/{team.id}/members",
        {"user": "sock", "role": "admin"},
        format="json",
    )
    assert sent.status_code == 202
    removed = signed_in(alice).delete(
        f"/api/workspaces/{team.id}/members/{rogue_membership.id}"
    )
    assert removed.status_code == 200
    invitation = Invitation.objects.get(user=sock)

    answered = answer(sock, invitation)

    assert answered.status_code == 400
    assert "withdrawn" in answered.content.decode()
    assert not Membership.objects.filter(workspace=team, user=sock).exists()
    assert not Invitation.objects.filter(pk=invitation.pk).exists()


def test_an_invitation_to_own_from_an_owner_made_admin_since_is_withdrawn(alice, bob):
    carol = UserFactory(username="carol")
    team = team_of(alice)
    Membership.objects.create(workspace=team, user=bob, role="owner")
    signed_in(bob).post(
        f"/api/workspaces/{team.id}/members",
        {"user": "carol", "role": "owner"},
        format="json",
    )
    Membership.objects.filter(workspace=team, user=bob).update(role="admin")

    answered = answer(carol, Invitation.objects.get(user=carol))

    assert answered.status_code == 400
    assert not Membership.objects.filter(workspace=team, user=carol).exists()


def test_an_invitation_from_a_deactivated_admin_is_withdrawn(alice, bob):
    team = team_of(alice)
    signed_in(alice).post(
        f"/api/workspaces/{team.id}/members",
        {"user": bob.username, "role": "editor"},
        format="json",
    )
    alice.is_active = False
    alice.save()

    answered = answer(bob, Invitation.objects.get(user=bob))

    assert answered.status_code == 400
    assert "withdrawn" in answered.content.decode()
    assert not Membership.objects.filter(workspace=team, user=bob).exists()


def test_an_invitation_from_an_admin_still_in_place_is_accepted(alice, bob):
    team = team_of(alice)
    signed_in(alice).post(
        f"/api/workspaces/{team.id}/members",
        {"user": bob.username, "role": "editor"},
        format="json",
    )

    answered = answer(bob, Invitation.objects.get(user=bob))

    assert answered.status_code == 302
    assert Membership.objects.get(workspace=team, user=bob).role == "editor"
