"""`/api/schema` describes the server (issue 13, item 18); the suite-wide check
that every response matches it lives in tests/openapi_contract.py."""

from __future__ import annotations

import pytest

from tests.openapi_contract import SchemaDrift, check_response


@pytest.fixture
def schema(api):
    return api.get("/api/schema", HTTP_ACCEPT="application/json").json()


def test_the_webhook_is_documented_with_its_headers_and_statuses(schema):
    operation = schema["paths"]["/api/webhooks/{flowId}"]["post"]

    assert operation["security"] == []
    headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
    assert {"webhook-id", "webhook-timestamp", "webhook-signature", "Weir-Hops"} <= (
        headers
    )
    assert {"200", "400", "401", "404", "413", "415", "429", "504", "508"} <= set(
        operation["responses"]
    )


def test_every_operation_lists_its_errors_in_the_envelope(schema):
    envelope = {"$ref": "#/components/schemas/ErrorEnvelope"}
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            error = operation["responses"]["500"]["content"]["application/json"]
            assert envelope in (error["schema"], *error["schema"].get("anyOf", [])), (
                method,
                path,
            )
    assert schema["components"]["schemas"]["ErrorEnvelope"]["required"] == ["error"]


def test_a_flow_update_documents_412_and_the_etag(schema):
    patch = schema["paths"]["/api/flows/{id}"]["patch"]
    get = schema["paths"]["/api/flows/{id}"]["get"]

    assert "412" in patch["responses"]
    assert "ETag" in patch["responses"]["200"]["headers"]
    assert "ETag" in get["responses"]["200"]["headers"]


def test_deletes_are_documented_as_200_success(schema):
    for path in ("/api/flows/{id}", "/api/flows/{id}/webhook-secret"):
        responses = schema["paths"][path]["delete"]["responses"]
        assert "204" not in responses
        ref = responses["200"]["content"]["application/json"]["schema"]["$ref"]
        body = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert body["properties"] == {"success": {"type": "boolean"}}


def test_nodes_and_edges_are_typed_as_the_graph_format(schema):
    flow = schema["components"]["schemas"]["Flow"]["properties"]

    assert flow["nodes"]["items"]["required"] == ["id", "type"]
    assert flow["edges"]["items"]["required"] == ["id", "source", "target"]


def test_unsafe_operations_need_a_token_or_the_session_and_the_csrf_header(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["cookieAuth"] == {
        "type": "apiKey",
        "in": "cookie",
        "name": "sessionid",
    }
    assert schemes["csrfHeader"]["name"] == "X-CSRFToken"
    create = schema["paths"]["/api/flows"]["post"]
    assert create["security"] == [
        {"bearerAuth": []},
        {"cookieAuth": [], "csrfHeader": []},
    ]
    assert schema["paths"]["/api/flows"]["get"]["security"] == [
        {"bearerAuth": []},
        {"cookieAuth": []},
    ]


def test_the_schema_lists_the_bearer_scheme_and_a_tokens_403(schema):
    assert schema["components"]["securitySchemes"]["bearerAuth"]["scheme"] == "bearer"
    assert "403" in schema["paths"]["/api/flows"]["get"]["responses"]


def test_the_contract_check_refuses_an_undocumented_status(db):
    with pytest.raises(SchemaDrift, match="418"):
        check_response("GET", "/api/flows", 418, "application/json", {})


def test_the_contract_check_refuses_a_body_unlike_the_schema(db):
    with pytest.raises(SchemaDrift, match="is not of type 'string'"):
        check_response(
            "GET",
            "/api/auth/session",
            200,
            "application/json",
            {"id": 1, "username": 2},
        )


def test_the_contract_check_passes_what_the_schema_describes(db):
    check_response(
        "GET",
        "/api/auth/session",
        200,
        "application/json",
        {"id": 1, "username": "a", "workspaces": []},
    )
    check_response(
        "POST",
        "/api/webhooks/6f1c0a9e-7d3b-4a53-9d7e-2f0e3b1f2a10",
        508,
        "application/json",
        {"error": {"code": "loop_detected", "message": "Too deep."}},
    )


def test_the_bearer_scheme_names_both_kinds_of_token(schema):
    description = schema["components"]["securitySchemes"]["bearerAuth"]["description"]

    assert "weir_pat_" in description
    assert "weir_wst_" in description
