"""The switch node (flows/nodes/switch.py): one output per case plus `default`."""

from __future__ import annotations

from unittest import mock

import pytest

import sandbox
from flows.engine import run_flow
from flows.graph import validate_graph
from flows.models import RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import edge, node, trigger


def switch(mode="first", cases=None):
    cases = (
        cases
        if cases is not None
        else [
            {"handle": "big", "expression": "input.amount > 100"},
            {"handle": "even", "expression": "input.amount % 2 === 0"},
        ]
    )
    return node("route", "switch", cases=cases, mode=mode)


def routed_flow(owner, mode="first"):
    nodes = [
        trigger(),
        switch(mode),
        node("on_big", "transform", values={"went": "big"}),
        node("on_even", "transform", values={"went": "even"}),
        node("on_default", "transform", values={"went": "default"}),
    ]
    edges = [
        edge("trigger", "route"),
        edge("route", "on_big", "big"),
        edge("route", "on_even", "even"),
        edge("route", "on_default", "default"),
    ]
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def statuses(run):
    return dict(run.steps.values_list("node_id", "status"))


def test_a_switch_with_no_match_fires_only_default(alice):
    run = run_flow(routed_flow(alice), {"amount": 7}, "manual")

    assert run.status == "succeeded"
    assert statuses(run) | {} == {
        "trigger": "succeeded",
        "route": "succeeded",
        "on_big": "skipped",
        "on_even": "skipped",
        "on_default": "succeeded",
    }
    assert run.steps.get(node_id="route").handle == "default"


def test_mode_first_fires_only_the_first_matching_case(alice):
    run = run_flow(routed_flow(alice, "first"), {"amount": 200}, "manual")

    assert statuses(run)["on_big"] == "succeeded"
    assert statuses(run)["on_even"] == "skipped"
    assert statuses(run)["on_default"] == "skipped"


def test_mode_all_fires_every_matching_case_and_not_default(alice):
    run = run_flow(routed_flow(alice, "all"), {"amount": 200}, "manual")

    assert statuses(run)["on_big"] == "succeeded"
    assert statuses(run)["on_even"] == "succeeded"
    assert statuses(run)["on_default"] == "skipped"
    assert run.steps.get(node_id="route").handle == "big,even"


def test_the_switch_passes_its_input_on(alice):
    flow = routed_flow(alice)
    flow.nodes[2]["data"]["values"] = {"seen": "{{ prev.amount }}"}
    flow.save()

    run = run_flow(flow, {"amount": 500}, "manual")

    assert run.steps.get(node_id="on_big").output == {"seen": 500}


def test_all_cases_are_evaluated_in_one_sandbox_round_trip(alice):
    flow = routed_flow(alice, "all")
    with mock.patch.object(sandbox, "_call", wraps=sandbox._call) as calls:
        run_flow(flow, {"amount": 3}, "manual")

    assert calls.call_count == 1
    assert calls.call_args.args[0]["expressions"] == [
        "input.amount > 100",
        "input.amount % 2 === 0",
    ]


def test_a_failing_case_expression_fails_the_switch(alice):
    flow = routed_flow(alice)
    flow.nodes[1]["data"]["cases"][0]["expression"] = "input.nothing.deeper"
    flow.save()

    run = run_flow(flow, {"amount": 3}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "expression_error"


def test_a_resumed_run_replays_a_multi_handle_step_down_the_same_edges(alice):
    """The stored handle decides, not a new evaluation (which could differ)."""
    from flows.engine.new_run import new_run
    from flows.engine.runner import Execution

    flow = routed_flow(alice, "all")
    run = new_run(flow, "manual", {"amount": 1}, {})
    run.save()
    stored = [
        {"node_id": "trigger", "status": "succeeded", "handle": "", "output": {}},
        {
            "node_id": "route",
            "status": "succeeded",
            "handle": "big,even",
            "output": {"amount": 1},
            "node_type": "switch",
        },
    ]
    for position, row in enumerate(stored):
        RunStep.objects.create(
            run=run,
            position=position,
            **{k: v for k, v in row.items() if k != "node_type"},
        )
    Execution(flow, run, stored_steps=stored).execute()

    assert statuses(run) | {} == {
        "trigger": "succeeded",
        "route": "succeeded",
        "on_big": "succeeded",
        "on_even": "succeeded",
        "on_default": "skipped",
    }


def test_an_edge_from_a_handle_the_switch_does_not_have_is_refused():
    nodes = [trigger(), switch(), node("after", "transform", values={})]
    edges = [edge("trigger", "route"), edge("route", "after", "gone")]

    errors = validate_graph(nodes, edges)

    assert errors.edges[0]["field"] == "sourceHandle"
    assert "big, even, default" in errors.edges[0]["message"]


@pytest.mark.parametrize(
    ("cases", "field", "message"),
    [
        ([], "data.cases", "1 to 20"),
        ([{"handle": "x", "expression": "1"}] * 21, "data.cases", "1 to 20"),
        ([{"handle": "default", "expression": "1"}], "data.cases.0.handle", "reserved"),
        ([{"handle": "error", "expression": "1"}], "data.cases.0.handle", "reserved"),
        ([{"handle": "a,b", "expression": "1"}], "data.cases.0.handle", "letter"),
        (
            [{"handle": "a", "expression": "1"}, {"handle": "a", "expression": "2"}],
            "data.cases.1.handle",
            "twice",
        ),
        ([{"handle": "a", "expression": " "}], "data.cases.0.expression", "Give"),
    ],
)
def test_bad_cases_are_refused_at_save(cases, field, message):
    errors = validate_graph([trigger(), switch(cases=cases)], [])

    [problem] = errors.nodes
    assert problem["field"] == field
    assert message in problem["message"]


def test_a_switch_cannot_be_pinned(api, alice):
    flow = routed_flow(alice)

    response = api.patch(
        f"/api/flows/{flow.id}",
        {"pins": {"route": {"amount": 1}}},
        format="json",
        HTTP_IF_MATCH=f'"{flow.version}"',
    )

    assert response.status_code == 400
