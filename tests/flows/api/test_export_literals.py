"""Exports carry no literal secret typed into a node (issue 27 item 17): the
owner's credential values and known token shapes in URLs, bodies, code and
header values are replaced, and the export says where."""

from __future__ import annotations

import json

from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger

GITHUB = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
OPENAI = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"
OWN = "my-crm-key-without-any-shape-7731"


def flow_with_literals(owner):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="POST",
            url=f"https://api.example.com/v1?key={OWN}",
            headers={"X-Custom": f"Bearer {OPENAI}", "Accept": "application/json"},
            body=f'{{"token": "{GITHUB}"}}',
        ),
        node("code", "code", code=f"return {{ key: '{OPENAI}' }};"),
    )
    return FlowFactory(created_by=owner, name="Leaky", nodes=nodes, edges=edges)


def test_an_export_replaces_literal_secrets_and_lists_where(api, alice):
    make_credential(alice, name="crm", secrets={"token": OWN})
    flow = flow_with_literals(alice)

    body = api.get(f"/api/flows/{flow.id}/export").json()

    text = json.dumps(body)
    for secret in (GITHUB, OPENAI, OWN):
        assert secret not in text
    call = next(n for n in body["nodes"] if n["id"] == "call")
    assert call["data"]["url"] == "https://api.example.com/v1?key=[redacted:crm]"
    assert call["data"]["headers"] == {
        "X-Custom": "Bearer [redacted]",
        "Accept": "application/json",
    }
    assert sorted(map(tuple, (entry.values() for entry in body["redacted"]))) == [
        ("call", "data.body"),
        ("call", "data.headers.X-Custom"),
        ("call", "data.url"),
        ("code", "data.code"),
    ]


def test_a_blanked_secret_header_is_listed_too(api, alice):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://x.example/",
            headers={"Authorization": "whatever-it-was"},
        ),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    body = api.get(f"/api/flows/{flow.id}/export").json()

    assert body["redacted"] == [
        {"node_id": "call", "field": "data.headers.Authorization"}
    ]


def test_a_clean_flow_exports_an_empty_redacted_list(api, alice_flow):
    body = api.get(f"/api/flows/{alice_flow.id}/export").json()

    assert body["redacted"] == []


def test_an_exported_flow_with_placeholders_imports_again(api, alice):
    flow = flow_with_literals(alice)
    document = api.get(f"/api/flows/{flow.id}/export").json()

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 201, response.json()


def test_a_key_in_the_flows_description_is_replaced_too(api, alice):
    flow = FlowFactory(created_by=alice, description=f"Uses {GITHUB} for the API")

    body = api.get(f"/api/flows/{flow.id}/export").json()

    assert body["description"] == "Uses [redacted] for the API"
    assert {"node_id": None, "field": "description"} in body["redacted"]


def test_an_export_replaces_values_typed_into_fields_named_for_secrets(api, alice):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="POST",
            url="https://api.example.com/v1?api_key=plainkey42&page=2",
            headers={"Authorization": "letmein", "X-Auth-Token": "opensesame"},
            body='{"client_secret": "shh-no-shape", "password": "hunter2"}',
        ),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    body = api.get(f"/api/flows/{flow.id}/export").json()

    text = json.dumps(body)
    for secret in ("plainkey42", "letmein", "opensesame", "shh-no-shape", "hunter2"):
        assert secret not in text
    call = next(n for n in body["nodes"] if n["id"] == "call")
    assert call["data"]["url"] == "https://api.example.com/v1?api_key=[redacted]&page=2"
