"""`GET /api/flows/:id/export` and `POST /api/flows/import` (docs/api.md, section 3)."""

from __future__ import annotations

import pytest

from flows.models import Flow
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node, trigger


@pytest.fixture
def signed_flow(alice):
    nodes = [
        trigger(),
        code("greet", "return {hi: input.name};"),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://example.com/",
            headers={
                "Authorization": "Bearer sk-live-123",
                "X-Api-Key": "{{ input.key }}",
                "Accept": "application/json",
            },
        ),
    ]
    return FlowFactory(
        created_by=alice,
        name="Greeter: v2!",
        description="Says hi.",
        input_schema={"type": "object"},
        nodes=nodes,
        edges=[edge("trigger", "greet"), edge("greet", "call")],
        webhook_secret="whsec_do-not-leak",
    )


def test_export_is_the_portable_flow_without_any_secret(api, signed_flow):
    response = api.get(f"/api/flows/{signed_flow.id}/export")

    assert response.status_code == 200
    assert response["Content-Disposition"] == (
        'attachment; filename="greeter-v2.weir.json"'
    )
    body = response.json()
    assert list(body) == [
        "weir_version",
        "name",
        "description",
        "input_schema",
        "nodes",
        "edges",
        "credentials",
        "redacted",
    ]
    assert body["credentials"] == []
    assert body["weir_version"] == 1
    assert body["name"] == "Greeter: v2!"
    assert body["description"] == "Says hi."
    assert body["edges"] == signed_flow.edges
    assert [n["id"] for n in body["nodes"]] == ["trigger", "greet", "call"]
    assert body["nodes"][2]["data"]["headers"] == {
        "Authorization": "",
        "X-Api-Key": "{{ input.key }}",
        "Accept": "application/json",
    }
    assert "whsec_do-not-leak" not in response.content.decode()
    assert "sk-live-123" not in response.content.decode()
    signed_flow.refresh_from_db()
    assert signed_flow.nodes[2]["data"]["headers"]["Authorization"] == (
        "Bearer sk-live-123"
    )


def test_export_writes_out_on_http_error_so_an_import_can_tell_its_age(
    api, signed_flow
):
    nodes = [*signed_flow.nodes, node("post", "http_request", url="https://x.test/")]
    nodes[3]["data"]["on_http_error"] = "output"
    signed_flow.nodes = nodes
    signed_flow.save()

    body = api.get(f"/api/flows/{signed_flow.id}/export").json()

    assert [n["data"]["on_http_error"] for n in body["nodes"][2:]] == [
        "fail",
        "output",
    ]
    signed_flow.refresh_from_db()
    assert "on_http_error" not in signed_flow.nodes[2]["data"]


def test_an_http_node_of_an_older_export_keeps_error_answers_as_output(api):
    document = {
        "weir_version": 1,
        "name": "From last year",
        "nodes": [
            trigger(),
            node("old", "http_request", url="https://x.test/"),
            node("new", "http_request", url="https://x.test/", on_http_error="fail"),
        ],
        "edges": [edge("trigger", "old"), edge("old", "new")],
    }

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 201
    nodes = Flow.objects.get(pk=response.json()["id"]).nodes
    assert [n["data"]["on_http_error"] for n in nodes[1:]] == ["output", "fail"]


def test_export_of_another_users_flow_is_not_found(api, bob_flow):
    response = api.get(f"/api/flows/{bob_flow.id}/export")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_export_and_import_get_401(anon, bob_flow):
    exported = anon.get(f"/api/flows/{bob_flow.id}/export")
    imported = anon.post("/api/flows/import", {"weir_version": 1}, format="json")

    assert exported.status_code == imported.status_code == 401
    assert imported.json()["error"]["code"] == "not_authenticated"
    assert Flow.objects.count() == 1


def test_an_export_imports_as_a_new_flow_of_the_caller(api, bob_api, signed_flow, bob):
    document = api.get(f"/api/flows/{signed_flow.id}/export").json()

    response = bob_api.post("/api/flows/import", document, format="json")

    assert response.status_code == 201
    body = response.json()
    copy = Flow.objects.get(pk=body["id"])
    assert copy.created_by == bob
    assert copy.id != signed_flow.id
    assert (copy.name, copy.description) == ("Greeter: v2!", "Says hi.")
    assert copy.input_schema == {"type": "object"}
    assert copy.nodes == document["nodes"]
    assert copy.edges == signed_flow.edges
    assert copy.webhook_secret == ""
    assert body["webhook_signed"] is False
    assert body["version"] == 1


def test_import_ignores_ids_and_secrets_smuggled_into_the_document(api, bob_flow):
    document = {
        "weir_version": 1,
        "name": "Smuggler",
        "nodes": [],
        "edges": [],
        "id": str(bob_flow.id),
        "webhook_secret": "mine",
        "version": 99,
    }

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 201
    flow = Flow.objects.get(pk=response.json()["id"])
    assert flow.id != bob_flow.id
    assert (flow.webhook_secret, flow.version) == ("", 1)
    bob_flow.refresh_from_db()
    assert bob_flow.name == "Bob's flow"


def test_import_reports_graph_problems_by_node(api):
    document = {
        "weir_version": 1,
        "name": "Broken",
        "nodes": [trigger(), {**code("greet", ""), "name": "Greet"}],
        "edges": [edge("trigger", "nowhere")],
    }

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    [problem] = error["details"]["nodes"]
    assert problem["index"] == 1
    assert (problem["node_id"], problem["node_name"]) == ("greet", "Greet")
    assert problem["field"] == "data.code"
    assert error["details"]["edges"][0]["field"] == "target"
    assert not Flow.objects.filter(name="Broken").exists()


@pytest.mark.parametrize(
    ("version", "message"),
    [
        (None, "This is not a Weir flow export (no weir_version)."),
        (2, "weir_version 2 is not one this server reads (it reads 1)."),
        ("1", "weir_version '1' is not one this server reads (it reads 1)."),
        (True, "weir_version True is not one this server reads (it reads 1)."),
    ],
)
def test_a_missing_or_unknown_weir_version_is_a_field_error(api, version, message):
    document = {"name": "Future", "nodes": [], "edges": []}
    if version is not None:
        document["weir_version"] = version

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["message"] == message
    assert error["details"] == {"weir_version": [message]}
    assert not Flow.objects.exists()


def test_import_of_something_that_is_not_an_object_is_a_validation_error(api):
    response = api.post("/api/flows/import", [1, 2], format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"


def test_import_without_a_name_is_a_field_error(api):
    response = api.post(
        "/api/flows/import", {"weir_version": 1, "nodes": []}, format="json"
    )

    assert response.status_code == 400
    assert "name" in response.json()["error"]["details"]
    assert not Flow.objects.exists()


def test_malformed_json_import_is_invalid_json(api):
    response = api.post(
        "/api/flows/import", "{not json", content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
