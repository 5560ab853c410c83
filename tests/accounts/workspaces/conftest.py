"""A team workspace with one member of each role, and a flow in it."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Membership, Workspace
from tests.factories import FlowFactory, UserFactory

ROLES = ("viewer", "runner", "editor", "admin", "owner")


@pytest.fixture
def team(db):
    return Workspace.objects.create(name="Team", slug="team")


@pytest.fixture
def members(team):
    """{role: user} for every role in `team`."""
    found = {}
    for role in ROLES:
        user = UserFactory(username=f"team_{role}")
        Membership.objects.create(workspace=team, user=user, role=role)
        found[role] = user
    return found


@pytest.fixture
def as_member(members, bob):
    """`as_member(role)`: an API client signed in as that member of `team`;
    `as_member(None)` is bob, who is not a member."""

    def client(role):
        api = APIClient()
        api.force_login(members[role] if role else bob)
        return api

    return client


@pytest.fixture
def team_flow(team, members):
    return FlowFactory(created_by=members["owner"], workspace=team, name="Team flow")
