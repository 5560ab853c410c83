"""A workspace's invitations waiting for an answer: an admin lists and
withdraws them, and the list tells nobody who has an account (docs/api.md,
`/api/workspaces/:id/invitations`; docs/security.md, S26)."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.models import Invitation, Membership, Workspace
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def signed_in(user, client_class=APIClient):
    client = client_class()
    client.force_login(user)
    return client


def invite(admin, team, name, role="viewer"):
    return signed_in(admin).post(
        f"/api/workspaces/{team.id}/members",
        {"user": name, "role": role},
        format="json",
    )


def listed(admin, team):
    response = signed_in(admin).get(f"/api/workspaces/{team.id}/invitations")
    assert response.status_code == 200
    return response.json()


def answer(user, invitation_id, choice="accept"):
    return signed_in(user, Client).post(
        "/invitations/", {"invitation": str(invitation_id), "answer": choice}
    )


def test_the_list_does_not_tell_who_has_an_account(members, team):
    """An admin typing names to learn which have accounts sees the same row
    for an account, for nobody, and for a member, and no account's id."""
    UserFactory(username="carol", email="carol@corp.example")
    admin = members["admin"]
    for name in ("carol@corp.example", "nobody@corp.example", "team_viewer"):
        assert invite(admin, team, name).status_code == 202

    rows = listed(admin, team)

    assert {row["address"] for row in rows} == {
        "carol@corp.example",
        "nobody@corp.example",
        "team_viewer",
    }
    for row in rows:
        assert set(row) == {"id", "address", "role", "invited_by", "created_at"}
        assert (row["role"], row["invited_by"]) == ("viewer", "team_admin")


def test_an_admin_withdraws_an_invitation_and_it_can_no_longer_be_accepted(
    members, team
):
    carol = UserFactory(username="carol")
    invite(members["admin"], team, "carol", role="editor")
    (row,) = listed(members["admin"], team)

    withdrawn = signed_in(members["admin"]).delete(
        f"/api/workspaces/{team.id}/invitations/{row['id']}"
    )

    assert withdrawn.status_code == 200
    assert listed(members["admin"], team) == []
    page = answer(carol, row["id"])
    assert "That invitation is no longer open." in page.content.decode()
    assert not Membership.objects.filter(workspace=team, user=carol).exists()
    event = AuditEvent.objects.get(action="member.invitation_withdrawn")
    assert (event.target_label, event.changes["role"]) == ("carol", "editor")


@pytest.mark.parametrize("role", ["viewer", "runner", "editor"])
def test_a_member_who_does_not_manage_members_can_neither_list_nor_withdraw(
    members, team, role
):
    UserFactory(username="carol")
    invite(members["admin"], team, "carol")
    invitation = Invitation.objects.get(workspace=team)
    client = signed_in(members[role])

    assert client.get(f"/api/workspaces/{team.id}/invitations").status_code == 403
    path = f"/api/workspaces/{team.id}/invitations/{invitation.pk}"
    refused = client.delete(path)

    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_an_invitation_of_another_workspace_is_not_found(members, team, alice):
    """An admin of one workspace names another's invitation under their own."""
    made = signed_in(alice).post(
        "/api/workspaces", {"name": "Elsewhere"}, format="json"
    )
    other = Workspace.objects.get(pk=made.json()["id"])
    UserFactory(username="carol")
    invite(alice, other, "carol")
    theirs = Invitation.objects.get(workspace=other)

    response = signed_in(members["admin"]).delete(
        f"/api/workspaces/{team.id}/invitations/{theirs.pk}"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Invitation.objects.filter(pk=theirs.pk).exists()


def test_an_invitation_to_own_is_withdrawn_by_an_owner_only(members, team):
    UserFactory(username="carol")
    invite(members["owner"], team, "carol", role="owner")
    invitation = Invitation.objects.get(workspace=team)
    path = f"/api/workspaces/{team.id}/invitations/{invitation.pk}"

    refused = signed_in(members["admin"]).delete(path)

    assert refused.status_code == 403
    assert "workspace.own" in refused.json()["error"]["message"]
    assert signed_in(members["owner"]).delete(path).status_code == 200
    assert not Invitation.objects.filter(pk=invitation.pk).exists()


def test_past_the_cap_a_new_name_is_refused_and_a_listed_one_renewed(
    members, team, settings
):
    settings.INVITATIONS_PER_WORKSPACE = 2
    admin = members["admin"]
    invite(admin, team, "one")
    invite(admin, team, "two")

    refused = invite(admin, team, "three")
    renewed = invite(admin, team, "ONE", role="runner")

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "conflict"
    assert "withdraw some first" in refused.json()["error"]["message"]
    assert renewed.status_code == 202
    rows = {row["address"]: row["role"] for row in listed(admin, team)}
    assert rows == {"one": "runner", "two": "viewer"}


def test_two_names_of_one_account_are_answered_at_once(members, team):
    """Both rows reach carol; accepting one makes her a member once and ends
    the other."""
    carol = UserFactory(username="carol", email="carol@corp.example")
    invite(members["admin"], team, "carol")
    invite(members["admin"], team, "carol@corp.example", role="runner")
    first, second = Invitation.objects.filter(user=carol).order_by("created_at")

    answer(carol, first.pk)

    assert Membership.objects.get(workspace=team, user=carol).role == "viewer"
    assert not Invitation.objects.filter(workspace=team).exists()
    page = answer(carol, second.pk).content.decode()
    assert "That invitation is no longer open." in page


def test_a_members_name_is_listed_but_reaches_nobody(members, team):
    invite(members["admin"], team, "team_viewer", role="admin")

    assert [row["address"] for row in listed(members["admin"], team)] == ["team_viewer"]
    assert not Invitation.objects.filter(user=members["viewer"]).exists()
    assert Membership.objects.get(user=members["viewer"], workspace=team).role == (
        "viewer"
    )


def test_an_account_made_later_with_a_listed_name_is_not_invited(members, team):
    """A row typed for nobody stays nobody's: whoever takes the name later
    (a sign-up, single sign-on) gets no invitation from it."""
    invite(members["admin"], team, "dave@corp.example", role="admin")
    dave = UserFactory(username="dave", email="dave@corp.example")

    assert not Invitation.objects.filter(user=dave).exists()
    assert Invitation.objects.get(workspace=team).user is None


def test_the_members_page_lists_and_withdraws(members, team):
    UserFactory(username="carol")
    client = signed_in(members["admin"], Client)
    page = client.get(f"/workspaces/{team.id}/members/").content.decode()
    assert "No invitation is waiting for an answer." in page

    client.post(
        f"/workspaces/{team.id}/members/",
        {"action": "add", "user": "carol", "role": "runner"},
    )
    invitation = Invitation.objects.get(workspace=team)
    page = client.get(f"/workspaces/{team.id}/members/").content.decode()
    assert 'data-address="carol"' in page
    assert "Withdraw the invitation for carol" in page

    withdrawn = client.post(
        f"/workspaces/{team.id}/members/",
        {"action": "withdraw", "invitation": str(invitation.pk)},
        follow=True,
    )

    page = withdrawn.content.decode()
    assert (
        'id="withdraw-note" role="status">The invitation for carol is withdrawn.'
        in (page)
    )
    assert "No invitation is waiting for an answer." in page
    assert not Invitation.objects.filter(pk=invitation.pk).exists()


def test_the_members_page_says_why_an_admin_may_not_withdraw_an_owners(members, team):
    UserFactory(username="carol")
    invite(members["owner"], team, "carol", role="owner")
    invitation = Invitation.objects.get(workspace=team)

    refused = signed_in(members["admin"], Client).post(
        f"/workspaces/{team.id}/members/",
        {"action": "withdraw", "invitation": str(invitation.pk)},
    )

    assert refused.status_code == 400
    assert "it needs workspace.own" in refused.content.decode()
    assert Invitation.objects.filter(pk=invitation.pk).exists()


def test_a_viewer_sees_no_invitations_on_the_members_page(members, team):
    UserFactory(username="carol")
    invite(members["admin"], team, "carol")

    page = signed_in(members["viewer"], Client).get(f"/workspaces/{team.id}/members/")

    assert 'id="invitations"' not in page.content.decode()
    assert "carol" not in page.content.decode()


def test_a_name_longer_than_an_address_is_refused_beside_its_field(members, team):
    """An e-mail address is at most 254 characters; the name is now stored."""
    long_name = "a" * 250 + "@corp.example"

    refused = invite(members["admin"], team, long_name)
    page = signed_in(members["admin"], Client).post(
        f"/workspaces/{team.id}/members/",
        {"action": "add", "user": long_name, "role": "viewer"},
    )

    assert refused.status_code == 400
    assert refused.json()["error"]["code"] == "validation_error"
    assert "user" in refused.json()["error"]["details"]
    assert page.status_code == 400
    assert 'id="add-error" role="alert">Give at most 254 characters.' in (
        page.content.decode()
    )
    assert not Invitation.objects.exists()


def test_names_the_database_lowers_alike_are_one_row(members, team):
    """The Kelvin sign lowers to k in PostgreSQL: a name typed with it again
    renews the row, never trips the unique constraint (a 500)."""
    invite(members["admin"], team, "kate")

    again = invite(members["admin"], team, "\u212aate", role="runner")

    assert again.status_code == 202
    assert [row["role"] for row in listed(members["admin"], team)] == ["runner"]


def test_the_members_page_says_when_the_invitations_are_full(members, team, settings):
    settings.INVITATIONS_PER_WORKSPACE = 1
    client = signed_in(members["admin"], Client)
    add = {"action": "add", "role": "viewer"}
    client.post(f"/workspaces/{team.id}/members/", {**add, "user": "one"})

    refused = client.post(f"/workspaces/{team.id}/members/", {**add, "user": "two"})

    assert refused.status_code == 400
    assert 'id="add-error" role="alert">This workspace has 1 invitations' in (
        refused.content.decode()
    )
    assert [i.address for i in Invitation.objects.filter(workspace=team)] == ["one"]


def test_withdrawing_an_invitation_answered_meanwhile_says_so(members, team):
    carol = UserFactory(username="carol")
    invite(members["admin"], team, "carol")
    invitation = Invitation.objects.get(workspace=team)
    answer(carol, invitation.pk, "decline")

    late = signed_in(members["admin"], Client).post(
        f"/workspaces/{team.id}/members/",
        {"action": "withdraw", "invitation": str(invitation.pk)},
    )

    assert late.status_code == 400
    assert "That invitation was answered or withdrawn already." in late.content.decode()
    assert not AuditEvent.objects.filter(action="member.invitation_withdrawn").exists()
