"""Version history shows literal secrets replaced, as exports do (issue 27
item 17): a key once typed into a node and since moved into a credential does
not stay readable in `/api/flows/:id/versions`."""

from __future__ import annotations

import json

import pytest

from flows.models import FlowVersion
from tests.factories import make_credential
from tests.flows.api.test_versions import patch, with_code

pytestmark = pytest.mark.django_db

KEY = "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t"


def test_an_old_version_shows_the_typed_key_replaced(api, alice_flow):
    patch(api, alice_flow, {"nodes": with_code(alice_flow, f"return '{KEY}';")})
    patch(api, alice_flow, {"nodes": with_code(alice_flow, "return secrets.openai;")})

    response = api.get(f"/api/flows/{alice_flow.id}/versions/2")

    assert response.status_code == 200
    body = response.json()
    assert KEY not in json.dumps(body)
    greet = next(n for n in body["nodes"] if n["id"] == "greet")
    assert greet["data"]["code"] == "return '[redacted]';"
    assert body["redacted"] == [{"node_id": "greet", "field": "data.code"}]
    # Stored as typed: a restore brings the version back as it was.
    assert KEY in json.dumps(FlowVersion.objects.get(flow=alice_flow, number=2).nodes)


def test_a_credential_value_typed_into_a_node_shows_as_its_name(api, alice, alice_flow):
    make_credential(alice, name="crm", secrets={"token": "plain-value-no-shape-99"})
    patch(
        api,
        alice_flow,
        {"nodes": with_code(alice_flow, "return 'plain-value-no-shape-99';")},
    )

    body = api.get(f"/api/flows/{alice_flow.id}/versions/2").json()

    assert "plain-value-no-shape-99" not in json.dumps(body)
    assert "[redacted:crm]" in json.dumps(body["nodes"])


def test_a_diff_that_only_swaps_one_literal_for_another_shows_no_secret(
    api, alice_flow
):
    patch(api, alice_flow, {"nodes": with_code(alice_flow, f"return '{KEY}';")})
    patch(api, alice_flow, {"nodes": with_code(alice_flow, f"return '{KEY}x'; // v3")})

    response = api.get(f"/api/flows/{alice_flow.id}/versions/3/diff")

    assert response.status_code == 200
    assert KEY not in json.dumps(response.json())
    changed = response.json()["nodes"]["changed"]
    assert [c["paths"] for c in changed] == [["data.code"]]


def test_a_diff_of_the_description_shows_no_key(api, alice_flow):
    patch(api, alice_flow, {"description": f"key: {KEY}"})

    body = api.get(f"/api/flows/{alice_flow.id}/versions/2/diff").json()

    assert KEY not in json.dumps(body)
    [field] = body["fields"]
    assert field["after"] == "key: [redacted]"


def test_an_old_version_shows_a_password_field_replaced(api, alice_flow):
    typed = "return {password: 'hunter2-no-shape'};"
    patch(api, alice_flow, {"nodes": with_code(alice_flow, typed)})
    patch(api, alice_flow, {"nodes": with_code(alice_flow, "return {};")})

    body = api.get(f"/api/flows/{alice_flow.id}/versions/2").json()

    assert "hunter2-no-shape" not in json.dumps(body)
    greet = next(n for n in body["nodes"] if n["id"] == "greet")
    assert greet["data"]["code"] == "return {password: '[redacted]'};"
