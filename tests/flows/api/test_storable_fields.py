"""A flow's fields are refused (400) when they could not be stored or shown back.

Before, a node named "\\ud800" was stored (SQLite) and from then on every
answer that showed it, the flow list included, was a 500.
"""

from __future__ import annotations

import json

import pytest
from rest_framework.renderers import JSONRenderer

from core.storable import MAX_NESTING
from flows.models import Flow
from tests.factories import webhook_code_graph

pytestmark = pytest.mark.django_db

NUL, SURROGATE = "\\u0000", "\\ud800"  # as they are written in the JSON body


def flow_body(**overrides) -> str:
    """A valid flow as JSON text, with `overrides` spliced in as raw JSON."""
    nodes, edges = webhook_code_graph()
    fields = {
        "name": json.dumps("Greeter"),
        "description": json.dumps(""),
        "input_schema": json.dumps({}),
        "nodes": json.dumps(nodes),
        "edges": json.dumps(edges),
    }
    fields.update(overrides)
    return "{" + ", ".join(f'"{key}": {value}' for key, value in fields.items()) + "}"


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def node_named(name: str) -> str:
    nodes, _ = webhook_code_graph()
    text = json.dumps(nodes)
    return text.replace('"name": "Webhook"', f'"name": "{name}"', 1)


BAD_FIELDS = {
    "surrogate-in-node-name": ("nodes", node_named(SURROGATE)),
    "nul-in-node-name": ("nodes", node_named(f"a{NUL}b")),
    "surrogate-in-name": ("name", f'"{SURROGATE}"'),
    "nul-in-name": ("name", f'"a{NUL}"'),
    "surrogate-in-description": ("description", f'"x{SURROGATE}"'),
    "surrogate-in-edges": ("edges", f'[{{"id": "{SURROGATE}"}}]'),
    "deep-input-schema": ("input_schema", '{"a": ' + nested(MAX_NESTING) + "}"),
    # Deep enough to refuse, well inside what the JSON parser itself accepts.
    "500-deep-nodes": ("nodes", nested(500)),
}


@pytest.mark.parametrize("case", BAD_FIELDS.keys())
def test_creating_a_flow_with_an_unstorable_field_is_refused(api, alice, case):
    field, raw = BAD_FIELDS[case]

    response = api.post(
        "/api/flows", flow_body(**{field: raw}), content_type="application/json"
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert field in error["details"]
    assert Flow.objects.count() == 0
    assert api.get("/api/flows").status_code == 200


def test_patching_a_node_name_to_a_lone_surrogate_changes_nothing(api, alice_flow):
    before = alice_flow.nodes

    response = api.patch(
        f"/api/flows/{alice_flow.id}",
        '{"nodes": ' + node_named(SURROGATE) + "}",
        content_type="application/json",
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    alice_flow.refresh_from_db()
    assert alice_flow.nodes == before
    assert alice_flow.version == 1


def test_api_answers_escape_non_ascii_so_no_stored_string_can_break_them():
    """UNICODE_JSON=False: a lone surrogate, had one been stored, is still sendable."""
    rendered = JSONRenderer().render({"name": "café \ud800"})

    assert rendered == b'{"name":"caf\\u00e9 \\ud800"}'
