"""Only nodes a trigger leads to run; the others are skipped with a reason."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger

pytestmark = pytest.mark.django_db

THROWS = "throw new Error('must never run');"


def steps_of(run):
    return {step.node_id: step for step in run.steps.all()}


def test_a_node_without_a_path_from_the_trigger_is_skipped_and_cannot_fail_the_run():
    nodes = [
        trigger(),
        code("greet", "return {hi: input.name};"),
        code("orphan", THROWS),
    ]
    flow = FlowFactory(nodes=nodes, edges=[edge("trigger", "greet")])

    run = run_flow(flow, {"name": "Ada"}, FlowRun.Trigger.MANUAL)

    assert run.status == FlowRun.Status.SUCCEEDED
    assert run.error is None
    assert run.results == {"trigger": {"name": "Ada"}, "greet": {"hi": "Ada"}}
    orphan = steps_of(run)["orphan"]
    assert orphan.status == "skipped"
    assert orphan.error == {
        "node_id": "orphan",
        "code": "unreachable",
        "message": "Skipped: no path from a trigger node leads to this node.",
    }
    assert orphan.started_at is None


def test_everything_downstream_of_an_unconnected_node_is_skipped_too():
    nodes = [
        trigger(),
        code("orphan", THROWS),
        code("after_orphan", THROWS),
    ]
    flow = FlowFactory(nodes=nodes, edges=[edge("orphan", "after_orphan")])

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == FlowRun.Status.SUCCEEDED
    steps = steps_of(run)
    assert steps["trigger"].status == "succeeded"
    assert [steps[n].status for n in ("orphan", "after_orphan")] == ["skipped"] * 2
    assert steps["after_orphan"].error["code"] == "unreachable"


def test_an_edge_from_an_unreachable_node_does_not_hold_back_its_target():
    nodes = [trigger(), code("orphan", THROWS), code("join", "return prev;")]
    edges = [edge("trigger", "join"), edge("orphan", "join")]
    flow = FlowFactory(nodes=nodes, edges=edges)

    run = run_flow(flow, {"n": 1}, FlowRun.Trigger.MANUAL)

    assert run.status == FlowRun.Status.SUCCEEDED
    assert run.results["join"] == {"n": 1}
    assert steps_of(run)["orphan"].error["code"] == "unreachable"


def test_a_flow_without_a_trigger_runs_nothing():
    flow = FlowFactory(nodes=[code("lonely", THROWS)], edges=[])

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == FlowRun.Status.SUCCEEDED
    assert run.results == {}
    assert steps_of(run)["lonely"].status == "skipped"


def test_a_branch_not_taken_is_skipped_without_the_unreachable_reason():
    nodes = [
        trigger(),
        {**code("pick", ""), "type": "condition", "data": {"expression": "false"}},
        code("yes", "return 1;"),
    ]
    flow = FlowFactory(
        nodes=nodes, edges=[edge("trigger", "pick"), edge("pick", "yes", "true")]
    )

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == FlowRun.Status.SUCCEEDED
    assert steps_of(run)["yes"].status == "skipped"
    assert steps_of(run)["yes"].error is None
