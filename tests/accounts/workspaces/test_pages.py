"""The pages: the switcher narrows the flow list, the members page manages
members with errors next to their cause, buttons a role cannot use are gone."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from accounts.workspaces.invitations import Invitation
from tests.factories import FlowFactory, UserFactory

pytestmark = pytest.mark.django_db


def page_client(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_switcher_shows_the_picked_workspaces_flows(members, team, team_flow):
    owner = members["owner"]
    own = FlowFactory(created_by=owner, name="Private flow")
    client = page_client(owner)

    personal = client.get("/").content.decode()
    picked = client.get(f"/?workspace={team.id}").content.decode()
    remembered = client.get("/").content.decode()

    assert "Private flow" in personal and "Team flow" not in personal
    assert "Team flow" in picked and own.name not in picked
    assert "Team flow" in remembered


def test_a_viewer_gets_no_save_or_run_button(members, team_flow):
    page = page_client(members["viewer"]).get(f"/flows/{team_flow.id}/").content
    runner = page_client(members["runner"]).get(f"/flows/{team_flow.id}/").content

    assert b'id="save-button" title="Save (Ctrl+S)" hidden' in page
    assert b'id="run-button" title="Run (Ctrl+Enter)" hidden' in page
    assert b'id="run-button" title="Run (Ctrl+Enter)" >' in runner


def test_an_admin_invites_a_member_on_the_members_page(members, team):
    carol = UserFactory(username="carol")
    client = page_client(members["admin"])

    response = client.post(
        f"/workspaces/{team.id}/members/",
        {"action": "add", "user": "carol", "role": "runner"},
    )

    assert response.status_code == 302
    assert not Membership.objects.filter(user=carol, workspace=team).exists()
    assert carol.invitations.get().role == "runner"
    page = client.get(response.url).content.decode()
    assert 'id="add-note" role="status">If an account has this username' in page


def test_an_unknown_user_gets_the_same_answer_as_a_known_one(members, team):
    UserFactory(username="carol")
    client = page_client(members["admin"])

    def invite(name):
        """The page after inviting `name` alone, with the name and the
        invitation's id and time masked (the list of invitations shows what
        was typed, and when)."""
        Invitation.objects.filter(workspace=team).delete()
        response = client.post(
            f"/workspaces/{team.id}/members/",
            {"action": "add", "user": name, "role": "viewer"},
            follow=True,
        )
        page = response.content.decode()
        page = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)
        invitation = str(Invitation.objects.get(workspace=team).pk)
        page = page.replace(invitation, "ID").replace(name, "NAME")
        page = re.sub(r'datetime="[^"]*"', "", page)
        return response.status_code, page[page.index("<main") :]

    assert invite("nobody") == invite("carol")


def test_the_last_owner_is_told_why_they_cannot_leave(members, team):
    owner = Membership.objects.get(user=members["owner"], workspace=team)

    response = page_client(members["owner"]).post(
        f"/workspaces/{team.id}/members/",
        {"action": "remove", "membership": str(owner.pk)},
    )

    assert response.status_code == 400
    assert "keeps at least one owner" in response.content.decode()
    assert Membership.objects.filter(pk=owner.pk).exists()


def test_a_non_member_gets_404_for_the_members_page(bob, team):
    assert page_client(bob).get(f"/workspaces/{team.id}/members/").status_code == 404


def test_a_user_makes_a_workspace_on_its_page_and_lands_on_its_members(alice):
    client = page_client(alice)
    assert "New workspace" in client.get("/").content.decode()

    answer = client.post("/workspaces/new/", {"name": "Ops team"})

    workspace = Workspace.objects.get(name="Ops team")
    assert answer.status_code == 302
    assert answer["Location"] == f"/workspaces/{workspace.pk}/members/"
    assert Membership.objects.get(workspace=workspace).user == alice
    assert Membership.objects.get(workspace=workspace).role == "owner"
    assert AuditEvent.objects.filter(action="workspace.created").count() == 1
    # Picked in the switcher: the flow list now shows the new, empty workspace.
    header = client.get("/").content.decode()
    assert f'value="{workspace.pk}" selected' in header


def test_a_workspace_without_a_name_is_refused_next_to_the_field(alice):
    answer = page_client(alice).post("/workspaces/new/", {"name": "  "})

    assert answer.status_code == 400
    assert 'id="name-error"' in answer.content.decode()
    assert "Name the workspace" in answer.content.decode()
    assert not Workspace.objects.filter(personal_of=None).exists()


def test_an_admin_cannot_remove_an_owner_on_the_members_page(members, team):
    """Removing an owner needs workspace.own, on the page as in the API: an
    admin must not strip a team of its co-owners one by one."""
    second = UserFactory(username="second_owner")
    owner = Membership.objects.create(workspace=team, user=second, role="owner")

    response = page_client(members["admin"]).post(
        f"/workspaces/{team.id}/members/",
        {"action": "remove", "membership": str(owner.pk)},
    )

    assert response.status_code == 400
    assert "it needs workspace.own" in response.content.decode()
    assert Membership.objects.filter(pk=owner.pk).exists()


def test_the_new_workspace_page_says_when_the_user_owns_too_many(alice, settings):
    settings.WORKSPACES_PER_USER = 1
    client = page_client(alice)
    assert client.post("/workspaces/new/", {"name": "One"}).status_code == 302

    response = client.post("/workspaces/new/", {"name": "Two"})

    assert response.status_code == 400
    assert "You control 1 workspaces (as owner or admin), the most one account" in (
        response.content.decode()
    )
    assert not Workspace.objects.filter(name="Two").exists()
