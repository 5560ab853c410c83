"""0021-0023 (and agents 0008) put each user's things in a personal workspace."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

BEFORE = [
    ("flows", "0020_run_call_root_index"),
    ("agents", "0007_agent_context_tokens"),
]
AFTER = [("flows", "0023_workspaces_required"), ("agents", "0008_workspaces")]


@pytest.mark.django_db(transaction=True)
def test_two_users_same_named_credentials_land_in_two_personal_workspaces(
    back_to_the_latest_schema,
):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    ada = User.objects.create(username="ada")
    bob = User.objects.create(username="bob")
    for user in (ada, bob):
        old.get_model("flows", "Credential").objects.create(
            owner=user, name="api_key", kind="bearer", encrypted="x"
        )
        old.get_model("flows", "Flow").objects.create(
            owner=user, name=f"{user.username}'s flow", nodes=[]
        )
    agent = old.get_model("agents", "Agent").objects.create(
        owner=ada, name="Helper", model="echo:demo"
    )
    nobodys = old.get_model("agents", "Agent").objects.create(
        name="Shared", model="echo:demo", shared=True
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)

    new = executor.loader.project_state(AFTER).apps
    Workspace = new.get_model("flows", "Workspace")
    Credential = new.get_model("flows", "Credential")
    ada_ws = Workspace.objects.get(personal_of=ada.pk)
    bob_ws = Workspace.objects.get(personal_of=bob.pk)
    assert (ada_ws.name, ada_ws.slug, bob_ws.slug) == ("ada", "ada", "bob")
    memberships = new.get_model("flows", "Membership").objects.order_by("user_id")
    assert [(m.user_id, m.workspace_id, m.role) for m in memberships] == [
        (ada.pk, ada_ws.pk, "owner"),
        (bob.pk, bob_ws.pk, "owner"),
    ]
    assert sorted(Credential.objects.values_list("workspace_id", "name")) == sorted(
        [(ada_ws.pk, "api_key"), (bob_ws.pk, "api_key")]
    )
    flows = new.get_model("flows", "Flow").objects.values_list("name", "workspace")
    assert sorted(flows) == sorted(
        [("ada's flow", ada_ws.pk), ("bob's flow", bob_ws.pk)]
    )
    Agent = new.get_model("agents", "Agent")
    assert Agent.objects.get(pk=agent.pk).workspace_id == ada_ws.pk
    assert Agent.objects.get(pk=nobodys.pk).workspace_id is None
    # The new constraint holds: one name per workspace.
    with pytest.raises(IntegrityError), transaction.atomic():
        Credential.objects.create(
            owner_id=ada.pk, workspace=ada_ws, name="api_key", kind="bearer"
        )
