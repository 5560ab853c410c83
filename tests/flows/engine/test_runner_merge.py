"""Merging branches: `wait: all` (the default) runs a node once every incoming
edge fired; `wait: any` once one has, with the first upstream output as prev."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node, trigger

pytestmark = pytest.mark.django_db


def condition_into_one_node(wait: str | None):
    """trigger -> check; check.true -> yes, check.false -> no; yes, no -> merge."""
    merge = code("merge", "return {merged: prev.said};")
    if wait:
        merge["wait"] = wait
    nodes = [
        trigger(),
        node("check", "condition", expression="input.n > 1"),
        code("yes", "return {said: 'big'};"),
        code("no", "return {said: 'small'};"),
        merge,
    ]
    edges = [
        edge("trigger", "check"),
        edge("check", "yes", "true"),
        edge("check", "no", "false"),
        edge("yes", "merge"),
        edge("no", "merge"),
    ]
    return FlowFactory(nodes=nodes, edges=edges)


def statuses(run) -> dict:
    return dict(run.steps.values_list("node_id", "status"))


@pytest.mark.parametrize(("n", "said"), [(5, "big"), (0, "small")])
def test_wait_any_runs_the_merge_after_either_branch_of_a_condition(n, said):
    run = run_flow(condition_into_one_node("any"), {"n": n}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded"
    assert run.results["merge"] == {"merged": said}
    assert statuses(run)["merge"] == "succeeded"


def test_wait_all_skips_a_node_fed_by_both_branches_of_a_condition():
    run = run_flow(condition_into_one_node(None), {"n": 5}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded"
    assert statuses(run) == {
        "trigger": "succeeded",
        "check": "succeeded",
        "yes": "succeeded",
        "no": "skipped",
        "merge": "skipped",
    }


def test_wait_any_with_both_branches_firing_runs_once_on_the_first():
    merge = code("merge", "return {first: prev.who};")
    merge["wait"] = "any"
    nodes = [
        trigger(),
        code("a", "return {who: 'a'};"),
        code("b", "return {who: 'b'};"),
        merge,
    ]
    edges = [
        edge("trigger", "a"),
        edge("trigger", "b"),
        edge("a", "merge"),
        edge("b", "merge"),
    ]

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, FlowRun.Trigger.MANUAL)

    assert run.results["merge"] == {"first": "a"}
    assert run.steps.filter(node_id="merge").count() == 1


def test_wait_all_with_both_branches_firing_sees_both_outputs():
    nodes = [
        trigger(),
        code("a", "return 1;"),
        code("b", "return 2;"),
        code("sum", "return prev.a + prev.b;"),
    ]
    edges = [
        edge("trigger", "a"),
        edge("trigger", "b"),
        edge("a", "sum"),
        edge("b", "sum"),
    ]

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, FlowRun.Trigger.MANUAL)

    assert run.results["sum"] == 3


def test_wait_any_when_no_branch_fired_skips_the_node():
    merge = code("merge", "return 1;")
    merge["wait"] = "any"
    nodes = [trigger(), node("check", "condition", expression="false"), merge]
    edges = [edge("trigger", "check"), edge("check", "merge", "true")]

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, FlowRun.Trigger.MANUAL)

    assert statuses(run)["merge"] == "skipped"
    assert run.status == "succeeded"
