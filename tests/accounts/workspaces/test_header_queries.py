"""The header's "Invitations (n)" link costs a signed-in page no query of its
own: the count comes with the memberships the header reads anyway."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import Invitation, Membership, Workspace

pytestmark = pytest.mark.django_db


def signed_in_page(user) -> tuple[str, list[str]]:
    """The API tokens page as `user` sees it, and the SQL it cost."""
    client = Client()
    client.force_login(user)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("tokens"))
    assert response.status_code == 200
    return response.content.decode(), [query["sql"] for query in queries]


def invite(user, *names: str) -> None:
    for name in names:
        team = Workspace.objects.create(name=name, slug=name.lower())
        Invitation.objects.create(workspace=team, user=user, role="editor")


def reads_invitations(sql: str) -> bool:
    return f'"{Invitation._meta.db_table}"' in sql


def test_pending_invitations_cost_a_page_no_query_of_their_own(alice):
    _, without = signed_in_page(alice)
    invite(alice, "Ops", "Sales")

    page, invited = signed_in_page(alice)

    assert "Invitations (2)" in page
    assert len(invited) == len(without)
    membership_table = f'"{Membership._meta.db_table}"'
    counted = [sql for sql in invited if reads_invitations(sql)]
    assert len(counted) == 1 and membership_table in counted[0]


def test_without_invitations_the_header_shows_no_link(alice):
    page, _ = signed_in_page(alice)

    assert 'id="invitations-link"' not in page


def test_an_account_with_no_membership_still_sees_its_invitations(alice):
    Membership.objects.filter(user=alice).delete()
    invite(alice, "Ops")

    page, _ = signed_in_page(alice)

    assert "Invitations (1)" in page
