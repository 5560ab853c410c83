"""The API tokens page: signed in only, one's own live tokens, never a digest."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from accounts.tokens.models import ApiToken
from tests.factories import UserFactory


def test_anonymous_is_sent_to_sign_in(db):
    response = Client().get("/account/tokens/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_page_lists_only_ones_own_live_tokens(alice_client, alice, bob):
    later = timezone.now() + timedelta(days=1)
    mine, _ = ApiToken.issue(alice, "mine", ["flows:read"], later)
    ApiToken.issue(alice, "gone", ["flows:read"], later)[0].revoke()
    ApiToken.issue(bob, "bobs", ["flows:read"], later)

    page = alice_client.get("/account/tokens/").content.decode()

    assert "mine" in page and mine.prefix in page
    assert "gone" not in page and "bobs" not in page
    assert mine.digest not in page


def test_the_workspace_choice_lists_ones_workspaces_personal_first_chosen(
    alice_client, alice, bob
):
    from accounts.workspaces.models import Membership, Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="runner")

    page = alice_client.get("/account/tokens/").content.decode()

    assert f'<option value="{team.id}" >Team (runner)</option>' in page
    assert (
        f'<option value="{alice.personal_workspace.id}" selected>alice (owner)</option>'
        in page
    )
    assert str(bob.personal_workspace.id) not in page


def test_a_workspace_tokens_page_is_its_admins_only(alice_client, alice, bob):
    from django.test import Client

    from accounts.workspaces.models import Membership, Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    Membership.objects.create(workspace=team, user=bob, role="editor")
    later = timezone.now() + timedelta(days=1)
    token, _ = ApiToken.issue_for_workspace(
        team, alice, "Deploy bot", ["flows:read"], later, role_cap="runner"
    )
    bob_client = Client()
    bob_client.force_login(bob)
    stranger = Client()
    stranger.force_login(UserFactory(username="stranger"))

    page = alice_client.get(f"/workspaces/{team.id}/tokens/").content.decode()

    assert "Tokens of Team" in page and token.prefix in page
    assert "agents:chat" not in page
    assert bob_client.get(f"/workspaces/{team.id}/tokens/").status_code == 403
    assert stranger.get(f"/workspaces/{team.id}/tokens/").status_code == 404
    members = alice_client.get(f"/workspaces/{team.id}/members/").content.decode()
    assert f"/workspaces/{team.id}/tokens/" in members
