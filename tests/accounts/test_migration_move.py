"""accounts 0006, agents 0012 and flows 0031 move workspaces, memberships and the
audit log from the flows app to accounts (issue 34): state only, so every row,
and every foreign key pointing at them, is the same after as before."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

BEFORE = [
    ("contenttypes", "0002_remove_content_type_name"),
    ("flows", "0030_task_queue_notify_later"),
    ("agents", "0011_owner_becomes_created_by"),
    ("accounts", "0005_workspace_tokens"),
]
AFTER = [
    ("flows", "0031_workspaces_and_audit_move_to_accounts"),
    ("agents", "0012_workspace_in_accounts"),
    ("accounts", "0006_workspaces_and_audit_move_here"),
]


@pytest.fixture
def back_to_the_latest_schema():
    """Later tests need every migration applied again."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.mark.django_db(transaction=True)
def test_every_row_and_reference_survives_the_move(back_to_the_latest_schema):
    old = migrate(BEFORE)
    ada = old.get_model("auth", "User").objects.create(username="ada")
    team = old.get_model("flows", "Workspace").objects.create(name="Ops", slug="ops")
    membership = old.get_model("flows", "Membership").objects.create(
        workspace=team, user=ada, role="owner"
    )
    event = old.get_model("flows", "AuditEvent").objects.create(
        action="flow.created", actor=ada, actor_label="ada", workspace=team
    )
    flow = old.get_model("flows", "Flow").objects.create(
        created_by=ada, workspace=team, name="Nightly", nodes=[]
    )
    credential = old.get_model("flows", "Credential").objects.create(
        created_by=ada, workspace=team, name="api", kind="bearer", encrypted="x"
    )
    agent = old.get_model("agents", "Agent").objects.create(
        created_by=ada, workspace=team, name="Helper", model="echo:demo"
    )
    token = old.get_model("accounts", "ApiToken").objects.create(
        name="ci",
        user=ada,
        created_by=ada,
        workspace=team,
        prefix="weir_x",
        digest="d" * 64,
        expires_at=timezone.now() + timedelta(days=1),
    )
    content_type = old.get_model("contenttypes", "ContentType").objects.get_or_create(
        app_label="flows", model="workspace"
    )[0]

    new = migrate(AFTER)

    Workspace = new.get_model("accounts", "Workspace")
    assert list(Workspace.objects.values_list("pk", "name", "slug")) == [
        (team.pk, "Ops", "ops")
    ]
    moved = new.get_model("accounts", "Membership").objects.get()
    assert (moved.pk, moved.workspace_id, moved.user_id, moved.role) == (
        membership.pk,
        team.pk,
        ada.pk,
        "owner",
    )
    audit = new.get_model("accounts", "AuditEvent").objects.get()
    assert (audit.pk, audit.action, audit.workspace_id) == (
        event.pk,
        "flow.created",
        team.pk,
    )
    workspace = Workspace.objects.get()
    assert [f.pk for f in workspace.flows.all()] == [flow.pk]
    assert [c.pk for c in workspace.credentials.all()] == [credential.pk]
    assert [a.pk for a in workspace.agents.all()] == [agent.pk]
    assert [t.pk for t in workspace.api_tokens.all()] == [token.pk]
    content_types = new.get_model("contenttypes", "ContentType").objects
    assert content_types.get(pk=content_type.pk).app_label == "accounts"


@pytest.mark.django_db(transaction=True)
def test_the_move_can_be_undone(back_to_the_latest_schema):
    new = migrate(AFTER)
    new.get_model("accounts", "Workspace").objects.create(name="Ops", slug="ops")

    old = migrate(BEFORE)

    workspaces = old.get_model("flows", "Workspace").objects
    assert list(workspaces.values_list("name", flat=True)) == ["Ops"]
