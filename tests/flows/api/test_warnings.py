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


def test_a_secret_typed_into_a_header_is_saved_with_a_warning(api, alice_flow):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://api.github.com/user",
            headers={"X-Gh": "ghp_16C7e42F292c6912E7710c838347Ae178B4a"},
        ),
    )

    response = api.patch(
        f"/api/flows/{alice_flow.id}", {"nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 200
    [warning] = response.json()["warnings"]
    assert "'call'" in warning and "data.headers.X-Gh" in warning
    assert "{{ secrets.NAME }}" in warning


def test_a_credential_reference_is_saved_without_a_warning(api, alice_flow):
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://api.github.com/user",
            headers={"Authorization": "Bearer {{ secrets.github }}"},
        ),
    )

    response = api.patch(
        f"/api/flows/{alice_flow.id}", {"nodes": nodes, "edges": edges}, format="json"
    )

    assert response.json()["warnings"] == []
