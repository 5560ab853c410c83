"""The graph validator and the flow endpoints never answer 5xx, whatever the graph.

Found by hand first (an edge to or from a node of an unknown type was a 500),
then searched for with hypothesis: random nodes, edges and data of every JSON
type, sent to `validate_graph` and through the API.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flows.graph import validate_graph
from flows.nodes import NODE_KINDS

UNKNOWN_TYPES = ["shell", "python", "__proto__", None, "", 7, ["code"], {"t": 1}]

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
ids = st.sampled_from(["a", "b", "c", "trigger"]) | json_values
types = st.sampled_from(sorted(NODE_KINDS) + UNKNOWN_TYPES) | json_values
data = (
    st.fixed_dictionaries(
        {},
        optional={
            key: json_values
            for key in [
                "code",
                "language",
                "expression",
                "values",
                "method",
                "url",
                "headers",
                "body",
                "timeout_ms",
                "status",
                "ms",
                "agent_id",
                "message",
                "cron",
            ]
        },
    )
    | json_values
)
nodes = st.lists(
    st.fixed_dictionaries(
        {"id": ids, "type": types},
        optional={"data": data, "name": json_values, "position": json_values},
    )
    | json_values,
    max_size=5,
)
edges = st.lists(
    st.fixed_dictionaries(
        {"id": ids, "source": ids, "target": ids},
        optional={
            "sourceHandle": st.sampled_from([None, "true", "false"]) | json_values
        },
    )
    | json_values,
    max_size=5,
)


@pytest.mark.parametrize("type_", UNKNOWN_TYPES, ids=repr)
def test_an_edge_to_or_from_a_node_of_unknown_type_is_a_validation_error(type_):
    graph_nodes = [
        {"id": "a", "type": "webhook", "data": {}},
        {"id": "b", "type": type_, "data": {}},
    ]
    graph_edges = [
        {"id": "in", "source": "a", "target": "b"},
        {"id": "out", "source": "b", "target": "a"},
    ]

    errors = validate_graph(graph_nodes, graph_edges)

    assert errors
    assert any(item["field"] == "type" for item in errors.as_details()["nodes"])


@pytest.mark.parametrize("type_", UNKNOWN_TYPES, ids=repr)
def test_the_api_refuses_such_a_graph_with_400(api, alice, type_):
    body = {
        "name": "f",
        "nodes": [
            {"id": "a", "type": "webhook", "data": {}},
            {"id": "b", "type": type_},
        ],
        "edges": [{"id": "e", "source": "b", "target": "a"}],
    }

    response = api.post("/api/flows", body, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert not alice.flows.exists()


@settings(max_examples=200, deadline=None)
@given(nodes=nodes | json_values, edges=edges | json_values)
def test_the_validator_never_raises(nodes, edges):
    validate_graph(nodes, edges)


@pytest.mark.django_db
@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(nodes=nodes, edges=edges, name=json_values)
def test_the_flow_endpoints_never_answer_5xx(api, alice_flow, nodes, edges, name):
    created = api.post(
        "/api/flows", {"name": name, "nodes": nodes, "edges": edges}, format="json"
    )
    patched = api.patch(
        f"/api/flows/{alice_flow.id}", {"nodes": nodes, "edges": edges}, format="json"
    )
    imported = api.post(
        "/api/flows/import",
        {"weir_version": 1, "name": "x", "nodes": nodes, "edges": edges},
        format="json",
    )

    for response in (created, patched, imported):
        assert response.status_code < 500, response.content[:300]
        if response.status_code >= 400:
            assert "error" in response.json()
