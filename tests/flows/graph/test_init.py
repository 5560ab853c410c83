"""Structural graph validation (docs/api.md): every problem, with its index."""

from __future__ import annotations

import pytest
from django.test import override_settings

from flows.graph import reachable_from_triggers, topological_order, validate_graph
from tests.factories import webhook_code_graph


def node(node_id, type_="code", **extra):
    data = {"language": "javascript", "code": "return 1;"} if type_ == "code" else {}
    return {
        "id": node_id,
        "type": type_,
        "position": {"x": 0, "y": 0},
        "data": data,
        **extra,
    }


def edge(edge_id, source, target, handle=None):
    return {"id": edge_id, "source": source, "target": target, "sourceHandle": handle}


def test_a_valid_graph_has_no_errors():
    nodes, edges = webhook_code_graph()

    assert not validate_graph(nodes, edges)


def test_duplicate_node_ids_are_reported_with_the_index():
    errors = validate_graph([node("a"), node("a")], [])

    assert errors.as_details()["nodes"] == [
        {"index": 1, "field": "id", "message": "Node id 'a' is used more than once."}
    ]


def test_every_problem_is_reported_at_once():
    nodes = [node(""), node("b", type_="nope"), {"id": "c", "type": "code", "data": 3}]
    edges = [edge("e1", "b", "zzz")]

    details = validate_graph(nodes, edges).as_details()

    assert [(e["index"], e["field"]) for e in details["nodes"]] == [
        (0, "id"),
        (1, "type"),
        (2, "data"),
    ]
    assert details["edges"] == [
        {
            "index": 0,
            "field": "target",
            "message": "Target 'zzz' is not a node of this flow.",
        }
    ]


def test_a_second_trigger_of_the_same_kind_is_refused():
    errors = validate_graph([node("t1", "webhook"), node("t2", "webhook")], [])

    assert errors.as_details()["nodes"] == [
        {
            "index": 1,
            "field": "type",
            "message": "A flow has at most one webhook trigger node.",
        }
    ]


def test_a_webhook_and_a_schedule_trigger_may_share_a_flow():
    schedule = {
        "id": "tick",
        "type": "schedule",
        "data": {"cron": "0 9 * * *", "timezone": "UTC"},
    }

    assert validate_graph([node("hook", "webhook"), schedule], []).as_details() == {}


def test_cycles_are_refused_naming_their_nodes():
    nodes = [node("a"), node("b"), node("c")]
    edges = [edge("e1", "a", "b"), edge("e2", "b", "c"), edge("e3", "c", "b")]

    details = validate_graph(nodes, edges).as_details()

    assert details["graph"] == [
        {"field": "edges", "message": "The flow has a cycle through nodes: b, c."}
    ]


def test_condition_edges_must_leave_from_true_or_false():
    nodes = [node("if", "condition"), node("a"), node("b")]
    edges = [
        edge("e1", "if", "a", "true"),
        edge("e2", "if", "b", "maybe"),
        edge("e3", "a", "b", "true"),
    ]

    details = validate_graph(nodes, edges).as_details()

    assert [(e["index"], e["field"]) for e in details["edges"]] == [
        (1, "sourceHandle"),
        (2, "sourceHandle"),
    ]
    assert "use one of true, false" in details["edges"][0]["message"]


def test_edges_into_a_trigger_and_self_loops_are_refused():
    nodes = [node("t", "webhook"), node("a")]
    edges = [edge("e1", "a", "t"), edge("e2", "a", "a")]

    details = validate_graph(nodes, edges).as_details()

    assert [e["message"] for e in details["edges"]] == [
        "A trigger node cannot have incoming edges.",
        "An edge cannot connect a node to itself.",
    ]


def test_duplicate_edge_ids_and_duplicate_connections_are_refused():
    nodes = [node("a"), node("b")]
    edges = [edge("e1", "a", "b"), edge("e1", "a", "b")]

    details = validate_graph(nodes, edges).as_details()

    assert [e["field"] for e in details["edges"]] == ["id", "target"]


def test_bad_positions_are_reported():
    errors = validate_graph([node("a", position={"x": "left"})], [])

    assert errors.as_details()["nodes"][0]["field"] == "position"


def test_nodes_and_edges_must_be_lists():
    details = validate_graph({"a": 1}, "edges").as_details()

    assert [e["field"] for e in details["graph"]] == ["nodes", "edges"]


@override_settings(FLOW_MAX_NODES=3, FLOW_MAX_EDGES=1)
def test_node_and_edge_count_limits_are_enforced():
    nodes = [node(f"n{i}") for i in range(4)]
    edges = [edge("e1", "n0", "n1"), edge("e2", "n1", "n2")]

    details = validate_graph(nodes, edges).as_details()

    assert [e["message"] for e in details["graph"]] == [
        "A flow has at most 3 nodes.",
        "A flow has at most 1 edges.",
    ]


@override_settings(FLOW_MAX_GRAPH_BYTES=1000)
def test_graph_size_limit_is_enforced():
    errors = validate_graph([node(f"n{i}", name="x" * 150) for i in range(6)], [])

    assert "the limit is 1000" in errors.as_details()["graph"][0]["message"]


def test_api_reports_graph_errors_in_the_envelope(api, alice):
    response = api.post(
        "/api/flows",
        {
            "name": "Loop",
            "nodes": [node("a"), node("b")],
            "edges": [edge("e1", "a", "b"), edge("e2", "b", "a")],
        },
        format="json",
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["message"] == "The flow has a cycle through nodes: a, b."
    assert error["details"]["graph"][0]["field"] == "edges"
    assert not alice.flows.exists()


def test_api_refuses_a_graph_over_2_mib(api, alice):
    big = [node(f"n{i}", name="x" * 190) for i in range(900)]
    for item in big:
        item["data"]["code"] = "return 1;" + " " * 2500

    response = api.post("/api/flows", {"name": "Big", "nodes": big}, format="json")

    assert response.status_code == 400
    assert "the limit is 2097152" in response.json()["error"]["message"]
    assert not alice.flows.exists()


def test_topological_order_puts_sources_first_and_keeps_ties_in_list_order():
    links = [("c", "a"), ("b", "a")]

    assert topological_order(["a", "b", "c", "d"], links) == ["b", "c", "d", "a"]


def test_topological_order_leaves_out_nodes_on_or_after_a_cycle():
    links = [("a", "b"), ("b", "c"), ("c", "b"), ("c", "d")]

    assert topological_order(["a", "b", "c", "d"], links) == ["a"]


def test_reachable_from_triggers_follows_edges_from_the_trigger_only():
    nodes = [node("trigger", "webhook"), *(node(n) for n in ("a", "b", "lone", "c"))]
    edges = [
        edge("e1", "trigger", "a"),
        edge("e2", "a", "b"),
        edge("e3", "lone", "c"),
    ]

    assert reachable_from_triggers(nodes, edges) == {"trigger", "a", "b"}


def test_reachable_from_triggers_is_empty_without_a_trigger():
    assert reachable_from_triggers([node("a")], []) == set()


def test_wait_must_be_all_or_any():
    nodes = [node("a", wait="all"), node("b", wait="any"), node("c", wait="some")]

    details = validate_graph(nodes, []).as_details()

    assert details["nodes"] == [
        {"index": 2, "field": "wait", "message": 'Wait must be "all" or "any".'}
    ]


@pytest.mark.parametrize(
    ("retry", "field", "message"),
    [
        ("often", "retry", "Retry must be an object like {max_attempts: 3}."),
        ({"tries": 3}, "retry", "Unknown retry settings: tries."),
        (
            {"max_attempts": 0},
            "retry.max_attempts",
            "Attempts must be a whole number 1-10.",
        ),
        (
            {"max_attempts": 11},
            "retry.max_attempts",
            "Attempts must be a whole number 1-10.",
        ),
        (
            {"max_attempts": True},
            "retry.max_attempts",
            "Attempts must be a whole number 1-10.",
        ),
        (
            {"backoff": "linear"},
            "retry.backoff",
            'Backoff must be "fixed" or "exponential".',
        ),
        ({"delay_ms": -1}, "retry.delay_ms", "The delay must be 0-60000 milliseconds."),
        (
            {"delay_ms": 60001},
            "retry.delay_ms",
            "The delay must be 0-60000 milliseconds.",
        ),
        ({"on": "503"}, "retry.on", "Retry on must be a list of up to 20 items."),
        (
            {"on": [503, "Bad Gateway!"]},
            "retry.on",
            "'Bad Gateway!' is neither an error code (like http_error) nor an HTTP "
            "status (like 503 or 5xx).",
        ),
    ],
)
def test_each_bad_retry_setting_is_a_field_error(retry, field, message):
    details = validate_graph([node("a", retry=retry)], []).as_details()

    assert details["nodes"] == [{"index": 0, "field": field, "message": message}]


def test_a_full_retry_setting_is_valid():
    retry = {
        "max_attempts": 10,
        "backoff": "exponential",
        "delay_ms": 0,
        "on": [503, "5xx", "http_error"],
    }

    assert validate_graph([node("a", retry=retry)], []).as_details() == {}
