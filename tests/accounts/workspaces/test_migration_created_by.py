"""flows 0028 and agents 0011 rename `owner` to `created_by`, keeping who
made each flow, credential and agent, and PostgreSQL's triggers working."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("flows", "0027_flow_mcp_offered"), ("agents", "0010_merge_mcp_workspaces")]
AFTER = [
    ("flows", "0028_owner_becomes_created_by"),
    ("agents", "0011_owner_becomes_created_by"),
]


@pytest.fixture
def back_to_the_latest_schema():
    """Later tests need every migration applied again."""
    yield
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
def test_who_made_each_thing_is_kept_and_deactivating_them_still_works(
    back_to_the_latest_schema,
):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    ada = old.get_model("auth", "User").objects.create(username="ada")
    workspace = old.get_model("flows", "Workspace").objects.create(
        name="ada", slug="ada", personal_of=ada
    )
    flow = old.get_model("flows", "Flow").objects.create(
        owner=ada, workspace=workspace, name="Ada's flow", nodes=[]
    )
    credential = old.get_model("flows", "Credential").objects.create(
        owner=ada, workspace=workspace, name="api_key", kind="bearer", encrypted="x"
    )
    agent = old.get_model("agents", "Agent").objects.create(
        owner=ada, workspace=workspace, name="Helper", model="echo:demo"
    )

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps

    made = [
        new.get_model("flows", "Flow").objects.get(pk=flow.pk),
        new.get_model("flows", "Credential").objects.get(pk=credential.pk),
        new.get_model("agents", "Agent").objects.get(pk=agent.pk),
    ]
    assert [(thing.created_by_id, thing.workspace_id) for thing in made] == [
        (ada.pk, workspace.pk)
    ] * 3
    # 0014's trigger function named `owner_id`: unchanged, this update fails.
    new.get_model("auth", "User").objects.filter(pk=ada.pk).update(is_active=False)
    # Deleting the maker keeps what the workspace holds.
    new.get_model("auth", "User").objects.filter(pk=ada.pk).delete()
    assert new.get_model("flows", "Flow").objects.get(pk=flow.pk).created_by_id is None
