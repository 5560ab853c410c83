"""The list node (flows/nodes/list.py): array work on one value."""

from __future__ import annotations

import time
from unittest import mock

import pytest

import sandbox
from flows.engine import run_flow
from flows.graph import validate_graph
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

ORDERS = [
    {"id": 1, "total": 50, "customer": {"id": "a"}},
    {"id": 2, "total": 150, "customer": {"id": "b"}},
    {"id": 3, "total": 300, "customer": {"id": "a"}},
]


def list_run(owner, input, **data):
    data.setdefault("source", "{{ input.orders }}")
    nodes, edges = chain(trigger(), node("work", "list", **data))
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, input, "manual")


def output(run):
    assert run.status == "succeeded", run.error
    return run.results["work"]


def test_filter_keeps_the_items_whose_expression_is_true(alice):
    run = list_run(
        alice, {"orders": ORDERS}, operation="filter", expression="item.total > 100"
    )

    assert output(run) == {"items": ORDERS[1:], "count": 2}


def test_map_builds_each_item_from_item_index_and_input(alice):
    run = list_run(
        alice,
        {"orders": ORDERS, "tag": "x"},
        operation="map",
        expression="({n: index, id: item.id, tag: input.tag})",
    )

    assert output(run)["items"] == [
        {"n": 0, "id": 1, "tag": "x"},
        {"n": 1, "id": 2, "tag": "x"},
        {"n": 2, "id": 3, "tag": "x"},
    ]


def test_map_sees_prev_as_the_upstream_output_not_the_array(alice):
    nodes, edges = chain(
        trigger(),
        node("up", "transform", values={"rate": 2}),
        node(
            "work",
            "list",
            source="{{ input.orders }}",
            operation="map",
            expression="item.total * prev.rate",
        ),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {"orders": ORDERS}, "manual")

    assert run.results["work"]["items"] == [100, 300, 600]


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_ten_thousand_elements_filter_in_one_sandbox_round_trip(alice, settings):
    settings.RUN_MAX_OUTPUT_BYTES = 4 * 1024 * 1024
    many = [{"n": n} for n in range(10_000)]
    with mock.patch.object(sandbox, "_call", wraps=sandbox._call) as calls:
        started = time.perf_counter()
        run = list_run(
            alice, {"orders": many}, operation="filter", expression="item.n % 2 === 0"
        )
        elapsed = time.perf_counter() - started

    assert output(run)["count"] == 5_000
    assert calls.call_count == 1
    assert elapsed < 5


def test_sort_orders_mixed_values_the_same_way_every_time_with_nulls_last(alice):
    values = [3, None, "b", True, 1, {"k": 1}, "a", None, False]

    ascending = output(list_run(alice, {"orders": values}, operation="sort"))
    descending = output(
        list_run(alice, {"orders": values}, operation="sort", order="descending")
    )

    assert ascending["items"] == [1, 3, "a", "b", False, True, {"k": 1}, None, None]
    assert descending["items"] == [{"k": 1}, True, False, "b", "a", 3, 1, None, None]


def test_sort_by_a_path(alice):
    run = list_run(
        alice,
        {"orders": ORDERS},
        operation="sort",
        path="total",
        order="descending",
    )

    assert [item["id"] for item in output(run)["items"]] == [3, 2, 1]


def test_group_by_a_path_gives_key_items_and_count(alice):
    run = list_run(alice, {"orders": ORDERS}, operation="group", path="customer.id")

    assert output(run) == {
        "items": [
            {"key": "a", "items": [ORDERS[0], ORDERS[2]], "count": 2},
            {"key": "b", "items": [ORDERS[1]], "count": 1},
        ],
        "count": 2,
    }


def test_unique_limit_chunk_and_flatten(alice):
    assert output(
        list_run(alice, {"orders": ORDERS}, operation="unique", path="customer.id")
    )["items"] == [ORDERS[0], ORDERS[1]]
    assert output(list_run(alice, {"orders": [1, 2, 3]}, operation="limit", count=2))[
        "items"
    ] == [1, 2]
    assert output(
        list_run(alice, {"orders": [1, 2, 3, 4, 5]}, operation="chunk", count=2)
    ) == {"items": [[1, 2], [3, 4], [5]], "count": 3}
    assert output(
        list_run(alice, {"orders": [[1, 2], 3, [4]]}, operation="flatten")
    ) == {"items": [1, 2, 3, 4], "count": 4}


def test_a_source_that_is_not_an_array_fails_invalid_items(alice):
    run = list_run(alice, {"orders": {"id": 1}}, operation="sort")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_items"
    assert "an object, not an array" in run.error["message"]


def test_an_expression_that_throws_fails_the_node_with_expression_error(alice):
    run = list_run(
        alice, {"orders": ORDERS}, operation="map", expression="item.no.such"
    )

    assert run.status == "failed"
    assert run.error["code"] == "expression_error"


def test_an_output_over_the_cap_fails_output_too_large(alice, settings):
    settings.RUN_MAX_OUTPUT_BYTES = 2_000
    big = ["x" * 100] * 50

    run = list_run(alice, {"orders": big}, operation="limit", count=50)

    assert run.status == "failed"
    assert run.error["code"] == "output_too_large"


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"source": "{{ input.a }}", "operation": "shuffle"}, "data.operation"),
        ({"source": "{{ input.a }}", "operation": "filter"}, "data.expression"),
        (
            {"source": "{{ input.a }}", "operation": "map", "expression": "item.("},
            "data.expression",
        ),
        ({"source": "{{ input.a }}", "operation": "group"}, "data.path"),
        ({"source": "{{ input.a }}", "operation": "chunk", "count": 0}, "data.count"),
        ({"source": "", "operation": "flatten"}, "data.source"),
        (
            {"source": "{{ input.a }}", "operation": "sort", "order": "up"},
            "data.order",
        ),
    ],
)
def test_bad_list_settings_are_refused_at_save(data, field):
    errors = validate_graph([trigger(), node("work", "list", **data)], [])

    assert [problem["field"] for problem in errors.nodes] == [field]
