"""Export carries a credential's name and kind, never its value or id; import
maps by name and kind to the importer's credentials or reports the missing."""

from __future__ import annotations

import json

import pytest

from accounts.workspaces.personal import personal_workspace
from flows.credentials.portable import export_nodes, import_nodes
from tests.factories import make_credential
from tests.flows.graphs import code, node, trigger

pytestmark = pytest.mark.django_db

SECRET = "tok-portable-secret"


def nodes_using(credential):
    return [
        trigger(),
        node(
            "call",
            "http_request",
            url="https://example.com",
            credential_id=str(credential.id),
        ),
        code("c", "return secrets.other;"),
    ]


def test_export_names_credentials_without_ids_or_values(alice):
    api = make_credential(alice, "api", secrets={"token": SECRET})
    make_credential(alice, "other", "header", {"value": "hv-1234"}, header_name="X")
    make_credential(alice, "unused")

    exported, refs = export_nodes(nodes_using(api), personal_workspace(alice).pk)

    assert exported[1]["data"]["credential"] == {"name": "api", "kind": "bearer"}
    assert "credential_id" not in exported[1]["data"]
    assert refs == [
        {"name": "api", "kind": "bearer"},
        {"name": "other", "kind": "header"},
    ]
    text = json.dumps([exported, refs])
    assert SECRET not in text and str(api.id) not in text


def test_export_leaves_the_flow_itself_unchanged(alice):
    api = make_credential(alice, "api")
    nodes = nodes_using(api)

    export_nodes(nodes, personal_workspace(alice).pk)

    assert nodes[1]["data"]["credential_id"] == str(api.id)


def test_import_maps_by_name_and_kind_to_the_importers_credentials(alice, bob):
    api = make_credential(alice, "api")
    make_credential(alice, "other", "header", {"value": "hv-1234"}, header_name="X")
    exported, refs = export_nodes(nodes_using(api), personal_workspace(alice).pk)
    bobs_api = make_credential(bob, "api")
    make_credential(bob, "other", "header", {"value": "b-123456"}, header_name="X")

    result = import_nodes(exported, refs, personal_workspace(bob).pk)

    assert result.missing == []
    assert result.nodes[1]["data"]["credential_id"] == str(bobs_api.id)
    assert "credential" not in result.nodes[1]["data"]


def test_import_reports_missing_names_and_kind_mismatches(alice, bob):
    api = make_credential(alice, "api")
    make_credential(alice, "other", "header", {"value": "hv-1234"}, header_name="X")
    exported, refs = export_nodes(nodes_using(api), personal_workspace(alice).pk)
    make_credential(bob, "api", "query", {"value": "q-123456"}, param_name="k")

    result = import_nodes(exported, refs, personal_workspace(bob).pk)

    assert result.missing == [
        {"name": "api", "kind": "bearer"},
        {"name": "other", "kind": "header"},
    ]
    assert "credential_id" not in result.nodes[1]["data"]


def test_import_drops_a_raw_credential_id_from_elsewhere(alice, bob):
    alices = make_credential(alice, "api")

    result = import_nodes(nodes_using(alices), [], personal_workspace(bob).pk)

    assert "credential_id" not in result.nodes[1]["data"]
