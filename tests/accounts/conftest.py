"""The team the workspace token tests share: a workspace and one member of
each role that matters to tokens."""

from __future__ import annotations

import pytest

from accounts.workspaces.models import Membership, Workspace
from tests.factories import UserFactory


@pytest.fixture
def team(db):
    return Workspace.objects.create(name="Team", slug="team")


@pytest.fixture
def people(team):
    """{role: user} for an admin, an editor and a viewer of `team`."""
    found = {}
    for role in ("admin", "editor", "viewer"):
        found[role] = UserFactory(username=f"team_{role}")
        Membership.objects.create(workspace=team, user=found[role], role=role)
    return found
