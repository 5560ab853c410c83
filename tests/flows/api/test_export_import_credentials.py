"""Export and import carry a credential's name and kind, never its id or value
(issue 15 item 6): the importer's own credential of that name is used, or the
import names what is missing."""

from __future__ import annotations

import json

import pytest

from flows.models import Flow
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger


def flow_using(owner, credential):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://example.com/",
            credential_id=str(credential.pk),
        ),
    )
    return FlowFactory(created_by=owner, name="Calls out", nodes=nodes, edges=edges)


def test_an_export_names_the_credential_and_holds_no_id_or_value(api, alice):
    credential = make_credential(alice, name="stripe", kind="bearer")
    flow = flow_using(alice, credential)

    body = api.get(f"/api/flows/{flow.id}/export").json()

    assert body["credentials"] == [{"name": "stripe", "kind": "bearer"}]
    call = next(n for n in body["nodes"] if n["id"] == "call")
    assert call["data"]["credential"] == {"name": "stripe", "kind": "bearer"}
    assert "credential_id" not in call["data"]
    text = json.dumps(body)
    assert str(credential.pk) not in text
    assert "tok-stripe-s3cr3t-value" not in text


def test_an_import_uses_the_importers_own_credential_of_that_name(
    api, bob_api, alice, bob
):
    flow = flow_using(alice, make_credential(alice, name="stripe"))
    document = api.get(f"/api/flows/{flow.id}/export").json()
    bobs = make_credential(bob, name="stripe")

    response = bob_api.post("/api/flows/import", document, format="json")

    assert response.status_code == 201
    imported = Flow.objects.get(pk=response.json()["id"])
    call = next(n for n in imported.nodes if n["id"] == "call")
    assert call["data"]["credential_id"] == str(bobs.pk)
    assert "credential" not in call["data"]


def test_an_import_without_the_credential_names_it_and_creates_nothing(
    api, bob_api, alice
):
    flow = flow_using(alice, make_credential(alice, name="stripe"))
    document = api.get(f"/api/flows/{flow.id}/export").json()

    response = bob_api.post("/api/flows/import", document, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "stripe (bearer)" in error["message"]
    assert error["details"]["credentials"] == [{"name": "stripe", "kind": "bearer"}]
    assert Flow.objects.filter(created_by__username="bob").count() == 0


@pytest.mark.parametrize(
    "credentials",
    ["stripe", {"name": "stripe"}, [1], [{"name": ["a"], "kind": "bearer"}], [None]],
)
def test_a_malformed_credentials_field_is_a_400_not_a_500(api, alice, credentials):
    flow = flow_using(alice, make_credential(alice, name="stripe"))
    document = api.get(f"/api/flows/{flow.id}/export").json()
    document["credentials"] = credentials

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 400
    assert "credentials" in response.json()["error"]["details"]
    assert Flow.objects.count() == 1


def test_a_malformed_credential_reference_in_a_node_is_a_400(api, alice):
    flow = flow_using(alice, make_credential(alice, name="stripe"))
    document = api.get(f"/api/flows/{flow.id}/export").json()
    call = next(n for n in document["nodes"] if n["id"] == "call")
    call["data"]["credential"] = {"name": {"x": 1}, "kind": []}

    response = api.post("/api/flows/import", document, format="json")

    assert response.status_code == 400
