"""0015 gives every flow that exists at upgrade its first version."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("flows", "0014_flow_versions")]
AFTER = [("flows", "0015_flow_versions_first")]


@pytest.mark.django_db(transaction=True)
def test_each_existing_flow_gets_its_first_version_at_its_number(
    back_to_the_latest_schema,
):
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    User = old.get_model("auth", "User")
    Flow = old.get_model("flows", "Flow")
    ada = User.objects.create(username="ada")
    edited = Flow.objects.create(owner=ada, name="Edited", version=7, nodes=[])
    Flow.objects.create(owner=ada, name="Fresh", version=1, nodes=[])

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)

    new = executor.loader.project_state(AFTER).apps
    FlowVersion = new.get_model("flows", "FlowVersion")
    versions = FlowVersion.objects.order_by("name")
    assert [(v.name, v.number, v.source) for v in versions] == [
        ("Edited", 7, "upgrade"),
        ("Fresh", 1, "upgrade"),
    ]
    assert versions.get(flow_id=edited.pk).created_by_label == "ada"
