"""The flow API's `warnings`: saved, but probably a mistake (a webhook loop)."""

from __future__ import annotations

from tests.flows.graphs import chain, node, trigger


def calling(url: str) -> dict:
    nodes, edges = chain(
        trigger(), node("call", "http_request", method="POST", url=url)
    )
    return {"nodes": nodes, "edges": edges}


def test_a_flow_calling_its_own_webhook_is_saved_with_a_warning(api, alice_flow):
    graph = calling(f"https://weir.example/api/webhooks/{alice_flow.id}")

    response = api.patch(f"/api/flows/{alice_flow.id}", graph, format="json")

    assert response.status_code == 200
    [warning] = response.json()["warnings"]
    assert "'call'" in warning and "own webhook" in warning
    alice_flow.refresh_from_db()
    assert alice_flow.nodes == graph["nodes"]


def test_a_flow_calling_another_url_has_no_warnings(api, alice_flow):
    graph = calling("https://example.com/api/webhooks/other")

    response = api.patch(f"/api/flows/{alice_flow.id}", graph, format="json")

    assert response.status_code == 200
    assert response.json()["warnings"] == []
