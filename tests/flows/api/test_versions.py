"""`/api/flows/:id/versions`: history, one version, diffs and restore."""

from __future__ import annotations

import pytest

from flows.models import FlowVersion
from tests.factories import make_credential

pytestmark = pytest.mark.django_db


def patch(api, flow, body, **headers):
    return api.patch(f"/api/flows/{flow.id}", body, format="json", **headers)


def with_code(flow, code):
    return [
        {**n, "data": {**n["data"], "code": code}} if n["id"] == "greet" else n
        for n in flow.nodes
    ]


def test_every_change_through_the_api_adds_one_version(api, alice_flow):
    patch(api, alice_flow, {"name": "Two"})
    patch(api, alice_flow, {"nodes": with_code(alice_flow, "return {v: 3};")})

    response = api.get(f"/api/flows/{alice_flow.id}/versions")

    assert response.status_code == 200
    rows = response.json()["results"]
    assert [(r["number"], r["source"]) for r in rows] == [
        (3, "edit"),
        (2, "edit"),
        (1, "create"),
    ]
    assert rows[0]["created_by"] == "alice"


def test_an_identical_patch_adds_no_version(api, alice_flow):
    response = patch(api, alice_flow, {"name": alice_flow.name})

    assert response.status_code == 200
    assert response.json()["version"] == 1
    assert response["ETag"] == '"1"'
    assert FlowVersion.objects.filter(flow=alice_flow).count() == 1


def test_pinning_adds_no_version(api, alice_flow):
    response = patch(api, alice_flow, {"pins": {"greet": {"greeting": "hi"}}})

    assert response.status_code == 200
    assert response.json()["version"] == 1
    assert FlowVersion.objects.filter(flow=alice_flow).count() == 1


def test_one_version_reads_as_it_was(api, alice_flow):
    patch(api, alice_flow, {"name": "Later"})

    response = api.get(f"/api/flows/{alice_flow.id}/versions/1")

    assert response.status_code == 200
    body = response.json()
    assert body["name"] == alice_flow.name
    assert body["nodes"] == alice_flow.nodes
    assert "webhook_secret" not in body and "pins" not in body


def test_an_unknown_version_is_not_found(api, alice_flow):
    response = api.get(f"/api/flows/{alice_flow.id}/versions/9")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_another_users_history_is_not_found(api, bob_flow):
    for path in ("versions", "versions/1", "versions/1/diff"):
        response = api.get(f"/api/flows/{bob_flow.id}/{path}")
        assert response.status_code == 404
    restore = api.post(f"/api/flows/{bob_flow.id}/versions/1/restore")
    assert restore.status_code == 404


def test_anonymous_gets_401(anon, alice_flow):
    response = anon.get(f"/api/flows/{alice_flow.id}/versions")

    assert response.status_code == 401


def test_the_diff_names_changed_added_and_moved_nodes(api, alice_flow):
    nodes = with_code(alice_flow, "return {v: 2};")
    nodes[0] = {**nodes[0], "position": {"x": 99, "y": 80}}
    nodes.append({"id": "extra", "type": "code", "name": "Extra", "data": {}})
    nodes[-1]["data"] = {"language": "javascript", "code": "return {};"}
    edges = [
        *alice_flow.edges,
        {"id": "e2", "source": "greet", "target": "extra", "sourceHandle": None},
    ]
    patch(api, alice_flow, {"nodes": nodes, "edges": edges, "name": "Renamed"})

    response = api.get(f"/api/flows/{alice_flow.id}/versions/2/diff")

    assert response.status_code == 200
    body = response.json()
    assert (body["from"], body["to"]) == (1, 2)
    assert body["nodes"]["added"] == [{"id": "extra", "name": "Extra", "type": "code"}]
    assert body["nodes"]["removed"] == []
    changed = {c["id"]: c for c in body["nodes"]["changed"]}
    assert changed["greet"]["paths"] == ["data.code"]
    assert changed["greet"]["layout_only"] is False
    assert changed["trigger"]["paths"] == ["position.x"]
    assert changed["trigger"]["layout_only"] is True
    assert [e["id"] for e in body["edges"]["added"]] == ["e2"]
    assert body["fields"] == [
        {"path": "name", "before": alice_flow.name, "after": "Renamed"}
    ]
    assert body["summary"]["nodes_moved"] == 1


def test_the_diff_against_a_chosen_version(api, alice_flow):
    patch(api, alice_flow, {"name": "Two"})
    patch(api, alice_flow, {"name": "Three"})

    body = api.get(f"/api/flows/{alice_flow.id}/versions/3/diff?against=1").json()

    assert (body["from"], body["fields"][0]["before"]) == (1, alice_flow.name)


def test_restore_writes_the_old_content_as_a_new_version(api, alice_flow):
    patch(api, alice_flow, {"nodes": with_code(alice_flow, "return {v: 2};")})

    response = api.post(
        f"/api/flows/{alice_flow.id}/versions/1/restore", HTTP_IF_MATCH='"2"'
    )

    assert response.status_code == 200
    assert response.json()["version"] == 3
    assert response["ETag"] == '"3"'
    alice_flow.refresh_from_db()
    assert alice_flow.nodes == FlowVersion.objects.get(flow=alice_flow, number=1).nodes
    newest = FlowVersion.objects.get(flow=alice_flow, number=3)
    assert (newest.source, newest.restored_from) == ("restore", 1)


def test_restore_with_a_stale_if_match_is_412(api, alice_flow):
    patch(api, alice_flow, {"name": "Two"})

    response = api.post(
        f"/api/flows/{alice_flow.id}/versions/1/restore", HTTP_IF_MATCH='"1"'
    )

    assert response.status_code == 412
    details = response.json()["error"]["details"]
    assert details["current_version"] == 2
    assert details["diff_url"] == f"/api/flows/{alice_flow.id}/versions/2/diff"
    alice_flow.refresh_from_db()
    assert (alice_flow.name, alice_flow.version) == ("Two", 2)


def schedule(enabled):
    return {
        "id": "tick",
        "type": "schedule",
        "name": "Every minute",
        "data": {"cron": "* * * * *", "timezone": "UTC", "enabled": enabled},
    }


def test_a_schedule_that_is_off_now_stays_off_after_a_restore(api, alice_flow):
    nodes = [schedule(True), *alice_flow.nodes[1:]]
    edges = [{"id": "e1", "source": "tick", "target": "greet", "sourceHandle": None}]
    patch(api, alice_flow, {"nodes": nodes, "edges": edges})  # v2: on
    patch(api, alice_flow, {"nodes": [schedule(False), *nodes[1:]]})  # v3: off
    patch(api, alice_flow, {"name": "Four"})

    response = api.post(f"/api/flows/{alice_flow.id}/versions/2/restore")

    assert response.status_code == 200
    alice_flow.refresh_from_db()
    assert alice_flow.nodes[0]["data"]["enabled"] is False


def test_the_mcp_offer_is_versioned_and_a_restore_never_turns_it_back_on(
    api, alice_flow
):
    patch(api, alice_flow, {"mcp_offered": True})  # v2: offered
    patch(api, alice_flow, {"mcp_offered": False})  # v3: withdrawn

    response = api.post(f"/api/flows/{alice_flow.id}/versions/2/restore")

    assert response.status_code == 200
    assert response.json()["mcp_offered"] is False
    alice_flow.refresh_from_db()
    assert alice_flow.mcp_offered is False
    offered = FlowVersion.objects.get(flow=alice_flow, number=2)
    assert offered.settings["mcp_offered"] is True


def test_restore_refuses_a_credential_that_is_gone(api, alice, alice_flow):
    credential = make_credential(alice, name="mail")
    nodes = [
        *alice_flow.nodes,
        {
            "id": "call",
            "type": "http_request",
            "name": "Call",
            "data": {"url": "https://example.com", "credential_id": str(credential.id)},
        },
    ]
    patch(api, alice_flow, {"nodes": nodes})
    patch(api, alice_flow, {"nodes": alice_flow.nodes})
    credential.delete()

    response = api.post(f"/api/flows/{alice_flow.id}/versions/2/restore")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    alice_flow.refresh_from_db()
    assert alice_flow.version == 3
