"""0033: every http_request node saved before `on_http_error` existed keeps
its error answers as output, in the flow and in each stored version."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("flows", "0032_webhook_signature_scheme")]
AFTER = [("flows", "0033_http_request_on_http_error_output")]


def migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def http(node_id, **data):
    return {"id": node_id, "type": "http_request", "data": data}


@pytest.mark.django_db(transaction=True)
def test_saved_http_nodes_keep_error_answers_as_output(back_to_the_latest_schema):
    old = migrate(BEFORE)
    ada = old.get_model("auth", "User").objects.create(username="ada")
    team = old.get_model("accounts", "Workspace").objects.create(name="Ops", slug="ops")
    Flow = old.get_model("flows", "Flow")
    code = {"id": "c", "type": "code", "data": {"code": "return 1"}}
    nodes = [
        {"id": "t", "type": "webhook", "data": {}},
        http("old", url="https://a.example/"),
        http("chose", url="https://b.example/", on_http_error="fail"),
        {"id": "bare", "type": "http_request"},
        code,
    ]
    calls = Flow.objects.create(
        created_by=ada, workspace=team, name="Calls", nodes=nodes, version=2
    )
    quiet = Flow.objects.create(
        created_by=ada, workspace=team, name="Quiet", nodes=[code]
    )
    FlowVersion = old.get_model("flows", "FlowVersion")
    for number, graph in ((1, [http("old", url="https://v1.example/")]), (2, nodes)):
        FlowVersion.objects.create(
            flow=calls,
            number=number,
            name="Calls",
            nodes=graph,
            source="save",
            created_by=ada,
            created_by_label="ada",
        )
    quiet_updated_at = quiet.updated_at

    new = migrate(AFTER)

    Flow = new.get_model("flows", "Flow")
    migrated = Flow.objects.get(pk=calls.pk).nodes
    assert migrated[1]["data"] == {
        "url": "https://a.example/",
        "on_http_error": "output",
    }
    assert migrated[2]["data"]["on_http_error"] == "fail"  # a choice is kept
    assert migrated[3]["data"] == {"on_http_error": "output"}
    assert migrated[0] == nodes[0] and migrated[4] == code
    unchanged = Flow.objects.get(pk=quiet.pk)
    assert (unchanged.nodes, unchanged.updated_at) == ([code], quiet_updated_at)
    versions = new.get_model("flows", "FlowVersion").objects.order_by("number")
    assert [v.nodes[0 if v.number == 1 else 1]["data"] for v in versions] == [
        {"url": "https://v1.example/", "on_http_error": "output"},
        {"url": "https://a.example/", "on_http_error": "output"},
    ]
