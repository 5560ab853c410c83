"""accounts 0002-0003 bind each existing token to its maker's personal workspace."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone


def accounts_at(accounts: str) -> list:
    """The migration targets: accounts at `accounts`, flows and agents at
    their last migrations before workspaces moved to accounts (accounts 0006),
    so the state holds flows' Workspace."""
    return [
        ("flows", "0030_task_queue_notify_later"),
        ("agents", "0011_owner_becomes_created_by"),
        ("accounts", accounts),
    ]


@pytest.mark.django_db(transaction=True)
def test_existing_tokens_land_in_their_makers_personal_workspace(
    back_to_the_latest_schema,
):
    executor = MigrationExecutor(connection)
    before = accounts_at("0001_initial")
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    Workspace = old.get_model("flows", "Workspace")
    tokens = []
    for name in ("ada", "bob"):
        user = old.get_model("auth", "User").objects.create(username=name)
        Workspace.objects.create(name=name, slug=name, personal_of=user)
        tokens.append(
            old.get_model("accounts", "ApiToken").objects.create(
                name="ci",
                user=user,
                prefix="weir_pat_abcd",
                digest=name * 16,
                expires_at=timezone.now() + timedelta(days=1),
            )
        )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    after = accounts_at("0003_token_workspace_required")
    executor.migrate(after)

    new = executor.loader.project_state(after).apps
    ApiToken = new.get_model("accounts", "ApiToken")
    bound = {
        token.user.username: token.workspace.personal_of_id
        for token in ApiToken.objects.select_related("user", "workspace")
    }
    assert bound == {"ada": tokens[0].user_id, "bob": tokens[1].user_id}
