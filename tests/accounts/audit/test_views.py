"""The audit page of a workspace: its admins' only, filters, next page, empty."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.audit.models import AuditEvent
from accounts.workspaces.models import Membership, Workspace
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def team():
    workspace = Workspace.objects.create(name="Team", slug="team")
    for role in ("admin", "runner"):
        Membership.objects.create(
            workspace=workspace, user=UserFactory(username=f"team_{role}"), role=role
        )
    return workspace


def page_of(username):
    client = Client()
    client.force_login(UserFactory(username=username))
    return client


def test_an_admin_sees_the_events_with_who_what_and_changes(team):
    AuditEvent.objects.create(
        action="flow.updated",
        actor_label="team_runner",
        workspace=team,
        target_type="flow",
        target_label="Orders",
        changes={"from": 3, "to": 4},
    )
    AuditEvent.objects.create(action="flow.deleted", actor_label="elsewhere")

    html = page_of("team_admin").get(f"/workspaces/{team.id}/audit/").content.decode()

    assert "Audit log of Team" in html
    assert "flow: Orders" in html and "team_runner" in html
    assert '<span class="audit-old">3</span> → <span class="audit-new">4</span>' in html
    assert "flow.deleted" not in html


def test_the_filters_narrow_and_a_next_page_follows(team):
    for day in range(3):
        AuditEvent.objects.create(
            action="member.added",
            actor_label="team_admin",
            workspace=team,
            at=timezone.now() - timedelta(days=day),
        )
    AuditEvent.objects.create(action="flow.updated", actor_label="x", workspace=team)
    admin = page_of("team_admin")
    url = f"/workspaces/{team.id}/audit/"

    html = admin.get(url, {"action": "member", "page_size": 2}).content.decode()

    assert html.count('class="audit-row"') == 2
    assert 'data-action="flow.updated"' not in html
    assert 'id="audit-next"' in html
    next_url = html.split('id="audit-next" href="')[1].split('"')[0]
    rest = admin.get(next_url.replace("&amp;", "&")).content.decode()
    assert rest.count('class="audit-row"') == 1


def test_nothing_yet_and_nothing_matching_have_their_own_words(team):
    admin = page_of("team_admin")
    url = f"/workspaces/{team.id}/audit/"

    assert "Nothing recorded yet" in admin.get(url).content.decode()
    assert "No events match" in admin.get(url, {"actor": "nobody"}).content.decode()


def test_a_bad_filter_is_said(team):
    html = (
        page_of("team_admin")
        .get(f"/workspaces/{team.id}/audit/", {"since": "soon"})
        .content.decode()
    )

    assert "The filter &#x27;since&#x27; is not valid" in html


def test_a_runner_gets_403_a_stranger_404_and_only_admins_see_the_links(team, bob):
    url = f"/workspaces/{team.id}/audit/"
    stranger = Client()
    stranger.force_login(bob)

    assert page_of("team_runner").get(url).status_code == 403
    assert stranger.get(url).status_code == 404
    admin_page = page_of("team_admin").get(f"/?workspace={team.id}").content.decode()
    runner_page = page_of("team_runner").get(f"/?workspace={team.id}").content.decode()
    assert 'id="audit-link"' in admin_page
    assert 'id="audit-link"' not in runner_page
