"""The flow endpoints of docs/api.md, section 3 (run and run history live elsewhere)."""

from __future__ import annotations

import uuid

import pytest
from django.test import override_settings

from flows.models import Flow
from tests.factories import FlowFactory, webhook_code_graph


def new_flow_body(name="Greeter"):
    nodes, edges = webhook_code_graph()
    return {"name": name, "nodes": nodes, "edges": edges}


def test_create_returns_the_whole_flow_with_its_webhook_url(api, alice):
    response = api.post("/api/flows", new_flow_body(), format="json")

    assert response.status_code == 201
    body = response.json()
    flow = Flow.objects.get(pk=body["id"])
    assert flow.created_by == alice
    assert body["name"] == "Greeter"
    assert body["nodes"] == new_flow_body()["nodes"]
    assert body["edges"] == new_flow_body()["edges"]
    assert body["version"] == 1
    assert body["webhook_url"] == f"http://testserver-base/api/webhooks/{flow.id}"
    assert {"created_at", "updated_at"} <= body.keys()


@pytest.fixture(autouse=True)
def _base_url(settings):
    settings.BASE_URL = "http://testserver-base"


def test_create_with_only_a_name_makes_an_empty_flow(api):
    response = api.post("/api/flows", {"name": "Empty"}, format="json")

    assert response.status_code == 201
    assert response.json()["nodes"] == []
    assert response.json()["edges"] == []


def test_create_without_name_is_a_validation_error(api, alice):
    response = api.post("/api/flows", {"nodes": []}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["name"] == ["This field is required."]
    assert not alice.flows.exists()


def test_create_with_wrong_types_is_a_validation_error(api, alice):
    response = api.post("/api/flows", {"name": 5, "nodes": "x"}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert not alice.flows.exists()


def test_malformed_json_is_invalid_json(api, alice):
    response = api.generic(
        "POST", "/api/flows", '{"name": "x",', content_type="application/json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert not alice.flows.exists()


def test_list_shows_only_the_callers_flows_newest_first(api, alice, bob_flow):
    older = FlowFactory(created_by=alice, name="older")
    newer = FlowFactory(created_by=alice, name="newer")

    response = api.get("/api/flows")

    assert response.status_code == 200
    assert [flow["name"] for flow in response.json()] == ["newer", "older"]
    assert str(bob_flow.id) not in {flow["id"] for flow in response.json()}
    assert {older.id, newer.id} == set(alice.flows.values_list("id", flat=True))


def test_list_uses_one_query_however_many_flows(api, alice, django_assert_num_queries):
    FlowFactory.create_batch(5, created_by=alice)

    # One for the session, one for the user, one for the flows.
    with django_assert_num_queries(3):
        response = api.get("/api/flows")

    assert len(response.json()) == 5


def test_retrieve_returns_the_flow_with_an_etag(api, alice_flow):
    response = api.get(f"/api/flows/{alice_flow.id}")

    assert response.status_code == 200
    assert response.json()["id"] == str(alice_flow.id)
    assert response["ETag"] == '"1"'


def test_other_users_flow_is_not_found(api, bob_flow):
    response = api.get(f"/api/flows/{bob_flow.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "flow_id",
    [str(uuid.uuid4()), "not-a-uuid", "123"],
    # Named, so that every xdist worker collects the same test ids.
    ids=["unknown", "malformed", "number"],
)
def test_unknown_or_malformed_flow_id_is_not_found(api, flow_id):
    response = api.get(f"/api/flows/{flow_id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_patch_changes_only_the_given_fields_and_bumps_the_version(api, alice_flow):
    nodes_before = alice_flow.nodes

    response = api.patch(
        f"/api/flows/{alice_flow.id}", {"name": "Renamed"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["name"] == "Renamed"
    assert response.json()["version"] == 2
    assert response["ETag"] == '"2"'
    alice_flow.refresh_from_db()
    assert alice_flow.name == "Renamed"
    assert alice_flow.nodes == nodes_before
    assert alice_flow.version == 2


def test_patch_with_matching_if_match_succeeds(api, alice_flow):
    response = api.patch(
        f"/api/flows/{alice_flow.id}",
        {"name": "Mine"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert response.status_code == 200
    assert response.json()["version"] == 2


def test_patch_with_stale_if_match_is_precondition_failed(api, alice_flow):
    api.patch(f"/api/flows/{alice_flow.id}", {"name": "First tab"}, format="json")

    response = api.patch(
        f"/api/flows/{alice_flow.id}",
        {"name": "Second tab"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert response.status_code == 412
    error = response.json()["error"]
    assert error["code"] == "precondition_failed"
    assert error["details"]["current_version"] == 2
    assert error["details"]["saved_by"] == "alice"
    assert error["details"]["diff_url"] == f"/api/flows/{alice_flow.id}/versions/2/diff"
    assert error["message"].startswith("alice saved version 2 of this flow at ")
    alice_flow.refresh_from_db()
    assert alice_flow.name == "First tab"


def test_patch_with_an_invalid_graph_changes_nothing(api, alice_flow):
    nodes = [*alice_flow.nodes, {"id": "x", "type": "teleport", "data": {}}]

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    details = response.json()["error"]["details"]
    assert details["nodes"] == [
        {"index": 2, "field": "type", "message": "Unknown node type 'teleport'."}
    ]
    alice_flow.refresh_from_db()
    assert len(alice_flow.nodes) == 2
    assert alice_flow.version == 1


def test_patch_of_edges_is_checked_against_the_stored_nodes(api, alice_flow):
    edges = [{"id": "e9", "source": "greet", "target": "ghost", "sourceHandle": None}]

    response = api.patch(f"/api/flows/{alice_flow.id}", {"edges": edges}, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["details"]["edges"][0]["field"] == "target"


def test_patch_of_other_users_flow_is_not_found(api, bob_flow):
    response = api.patch(f"/api/flows/{bob_flow.id}", {"name": "Mine"}, format="json")

    assert response.status_code == 404
    bob_flow.refresh_from_db()
    assert bob_flow.name == "Bob's flow"


def test_put_is_method_not_allowed(api, alice_flow):
    response = api.put(f"/api/flows/{alice_flow.id}", {"name": "x"}, format="json")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert "PATCH" in response["Allow"]


def test_delete_removes_the_flow(api, alice_flow):
    response = api.delete(f"/api/flows/{alice_flow.id}")

    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert not Flow.objects.filter(pk=alice_flow.pk).exists()


def test_delete_of_other_users_flow_is_not_found(api, bob_flow):
    response = api.delete(f"/api/flows/{bob_flow.id}")

    assert response.status_code == 404
    assert Flow.objects.filter(pk=bob_flow.pk).exists()


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/flows"),
        ("post", "/api/flows"),
        ("get", "/api/flows/{id}"),
        ("patch", "/api/flows/{id}"),
        ("delete", "/api/flows/{id}"),
    ],
)
def test_anonymous_gets_401_on_every_flow_endpoint(anon, bob_flow, method, path):
    response = getattr(anon, method)(path.format(id=bob_flow.id), {}, format="json")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Flow.objects.filter(pk=bob_flow.pk, name="Bob's flow").exists()


@override_settings(BASE_URL="https://weir.example.com")
def test_webhook_url_follows_the_base_url_setting(api, alice_flow):
    response = api.get(f"/api/flows/{alice_flow.id}")

    assert response.json()["webhook_url"] == (
        f"https://weir.example.com/api/webhooks/{alice_flow.id}"
    )


def test_the_webhook_response_mode_is_set_through_the_api(api, alice_flow):
    response = api.patch(
        f"/api/flows/{alice_flow.id}",
        {"webhook_response_mode": "immediately"},
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["webhook_response_mode"] == "immediately"
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_response_mode == "immediately"


def test_an_unknown_webhook_response_mode_is_refused(api, alice_flow):
    response = api.patch(
        f"/api/flows/{alice_flow.id}", {"webhook_response_mode": "later"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    alice_flow.refresh_from_db()
    assert alice_flow.webhook_response_mode == "completed"


def test_a_node_wait_other_than_all_or_any_is_a_field_error(api, alice_flow):
    nodes = [*alice_flow.nodes]
    nodes[1] = {**nodes[1], "wait": "first"}

    response = api.patch(f"/api/flows/{alice_flow.id}", {"nodes": nodes}, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"]["nodes"] == [
        {"index": 1, "field": "wait", "message": 'Wait must be "all" or "any".'}
    ]
