"""accounts 0011: invitations sent before it keep working, keyed by the
invitee's username (the name typed was not stored then)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("accounts", "0010_preference")]
AFTER = [("accounts", "0011_invitation_per_address")]


@pytest.mark.django_db(transaction=True)
def test_an_invitation_sent_before_keeps_its_invitee_and_shows_their_username(
    back_to_the_latest_schema,
):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    carol = old.get_model("auth", "User").objects.create(
        username="carol", email="carol@corp.example"
    )
    team = old.get_model("accounts", "Workspace").objects.create(
        name="Team", slug="team-0011"
    )
    old.get_model("accounts", "Invitation").objects.create(
        workspace=team, user=carol, role="editor"
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)

    new = executor.loader.project_state(AFTER).apps
    invitation = new.get_model("accounts", "Invitation").objects.get()
    assert (invitation.user_id, invitation.address, invitation.role) == (
        carol.pk,
        "carol",
        "editor",
    )
