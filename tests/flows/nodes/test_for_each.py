"""The for_each node (flows/nodes/for_each.py): a body flow once per item."""

from __future__ import annotations

from unittest import mock

import pytest

from flows.engine import background, lease, run_flow
from flows.graph import validate_graph
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db


def body_flow(owner, source="return {double: input.n * 2};", *extra):
    nodes, edges = chain(trigger(), code("work", source), *extra)
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges, name="Body")


def looping(owner, body, **data):
    data = {
        "items": "{{ input.items }}",
        "flow_id": str(body.id),
        "input": {"n": "{{ item }}", "at": "{{ index }}"},
        **data,
    }
    nodes, edges = chain(trigger(), node("loop", "for_each", **data))
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges, name="Loop")


def test_each_item_runs_the_body_once_and_the_output_counts_them(alice):
    body = body_flow(alice)

    run = run_flow(looping(alice, body), {"items": [1, 2, 3]}, "manual")

    assert run.status == "succeeded", run.error
    assert run.results["loop"] == {
        "count": 3,
        "succeeded": 3,
        "failed": 0,
        "errors": [],
        "results": [{"double": 2}, {"double": 4}, {"double": 6}],
    }
    children = FlowRun.objects.filter(flow=body).order_by("created_at")
    assert [child.input for child in children] == [
        {"n": 1, "at": 0},
        {"n": 2, "at": 1},
        {"n": 3, "at": 2},
    ]
    assert {child.called_by_id for child in children} == {run.id}
    assert children[2].delivery_id == f"call:{run.id}:loop:2"


def test_the_item_template_may_be_any_javascript_over_item_and_index(alice):
    body = body_flow(alice, "return input;")
    flow = looping(alice, body, input={"v": "{{ item.price * 2 + index }}"})

    run = run_flow(flow, {"items": [{"price": 5}, {"price": 7}]}, "manual")

    assert run.results["loop"]["results"] == [{"v": 10}, {"v": 15}]


def test_on_error_stop_fails_naming_the_item_and_the_progress(alice):
    body = body_flow(alice, "if (input.n === 3) throw new Error('bad'); return 1;")

    run = run_flow(looping(alice, body), {"items": [1, 2, 3, 4]}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "child_failed"
    assert run.error["message"].startswith("Item 2 failed (3 of 4 items done)")
    assert "bad" in run.error["message"]
    assert FlowRun.objects.filter(flow=body).count() == 3  # item 3 never ran


def test_on_error_continue_counts_the_failure_and_goes_on(alice):
    body = body_flow(alice, "if (input.n === 3) throw new Error('bad'); return 1;")
    flow = looping(alice, body, on_error="continue")

    run = run_flow(flow, {"items": [1, 2, 3, 4]}, "manual")

    assert run.status == "succeeded"
    output = run.results["loop"]
    assert (output["count"], output["succeeded"], output["failed"]) == (4, 3, 1)
    assert output["results"] == [1, 1, None, 1]
    [error] = output["errors"]
    failed_child = FlowRun.objects.get(flow=body, input__n=3)
    assert error["index"] == 2
    assert error["run_id"] == str(failed_child.id)
    assert error["code"] == "child_failed"


def test_a_stop_fail_in_the_body_is_that_items_error(alice):
    body = body_flow(
        alice,
        "return input;",
        node("halt", "stop", outcome="fail", code="no_stock", message="none"),
    )
    flow = looping(alice, body, on_error="continue")

    run = run_flow(flow, {"items": [1]}, "manual")

    [error] = run.results["loop"]["errors"]
    assert "no_stock: none" in error["message"]


def test_summary_leaves_the_results_out(alice):
    body = body_flow(alice)

    run = run_flow(looping(alice, body, collect="summary"), {"items": [1]}, "manual")

    assert "results" not in run.results["loop"]
    assert run.results["loop"]["succeeded"] == 1


def test_items_that_are_not_an_array_fail_invalid_items(alice):
    run = run_flow(looping(alice, body_flow(alice)), {"items": "1,2"}, "manual")

    assert run.error["code"] == "invalid_items"


def test_more_items_than_max_items_fail_before_any_runs(alice):
    body = body_flow(alice)

    run = run_flow(looping(alice, body, max_items=2), {"items": [1, 2, 3]}, "manual")

    assert run.error["code"] == "too_many_items"
    assert "3 items" in run.error["message"]
    assert not FlowRun.objects.filter(flow=body).exists()


def test_a_synchronous_run_out_of_time_times_out_with_its_progress(alice, settings):
    settings.RUN_TIMEOUT_SECONDS = 1
    body = body_flow(alice, "return 1;", node("nap", "delay", ms=300))

    run = run_flow(looping(alice, body), {"items": list(range(10))}, "manual")

    assert run.status == "timed_out"
    assert run.error["code"] == "run_timeout"
    assert "items done" in run.error["message"]


def test_a_background_run_out_of_time_continues_and_runs_each_item_once(
    alice, settings
):
    settings.RUN_TIMEOUT_SECONDS = 1
    body = body_flow(alice, "return input.n;", node("nap", "delay", ms=150))
    flow = looping(alice, body)
    run = background.enqueue_run(flow, {"items": list(range(12))}, "manual")

    passes = 0
    while background.execute_queued(str(run.id)) == "queued":
        passes += 1
        assert passes < 20

    run.refresh_from_db()
    assert run.status == "succeeded", run.error
    assert passes >= 1
    assert run.results["loop"]["count"] == 12
    assert run.results["loop"]["results"] == list(range(12))
    children = FlowRun.objects.filter(flow=body)
    assert children.count() == 12
    assert sorted(child.input["n"] for child in children) == list(range(12))
    assert {child.status for child in children} == {"succeeded"}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"items": "", "flow_id": "x"}, "data.items"),
        ({"items": "{{ input }}", "flow_id": 5}, "data.flow_id"),
        (
            {"items": "{{ input }}", "flow_id": "x", "on_error": "retry"},
            "data.on_error",
        ),
        ({"items": "{{ input }}", "flow_id": "x", "max_items": 1001}, "data.max_items"),
        ({"items": "{{ input }}", "flow_id": "x", "pause_ms": -1}, "data.pause_ms"),
        ({"items": "{{ input }}", "flow_id": "x", "collect": "all"}, "data.collect"),
    ],
)
def test_bad_for_each_settings_are_refused_at_save(data, field):
    errors = validate_graph([trigger(), node("loop", "for_each", **data)], [])

    assert [problem["field"] for problem in errors.nodes] == [field]


def test_a_cancelled_run_stops_the_loop_before_its_next_item(alice):
    body = body_flow(alice)
    flow = looping(alice, body)

    def cancelled_after_two_items(run_id):
        parent = not FlowRun.objects.filter(pk=run_id, trigger="call").exists()
        return parent and FlowRun.objects.filter(flow=body).count() >= 2

    with mock.patch.object(lease, "is_cancelled", cancelled_after_two_items):
        run = run_flow(flow, {"items": [1, 2, 3, 4]}, "manual")

    assert run.status == "cancelled"
    assert run.error["code"] == "cancelled"
    assert run.error["message"] == (
        "The run was cancelled at item 2 (2 of 4 items done)."
    )
    assert FlowRun.objects.filter(flow=body).count() == 2


def test_a_run_planted_under_an_items_delivery_id_is_not_that_items_result(alice):
    """A run someone else made under `call:<run>:<node>:<i>` (issue 27)."""
    from flows.engine.new_run import new_run
    from flows.engine.runner import Execution

    body = body_flow(alice)
    flow = looping(alice, body)
    run = new_run(flow, "manual", {"items": [1, 2]}, {})
    run.save()
    FlowRun.objects.create(
        flow=body,
        trigger="webhook",
        status="succeeded",
        delivery_id=f"call:{run.id}:loop:0",
        input={"n": 1, "at": 0},
        response={"status": 200, "body": {"double": "planted"}},
    )

    Execution(flow, run).execute()

    assert run.status == "failed"
    assert run.error["code"] == "delivery_taken"
    assert "planted" not in str(run.results)


def test_children_past_flow_call_max_children_fail_the_node(alice, settings):
    """A flow fanning out calls (1000 items, 5 deep) would queue 10^6 runs:
    one root run starts FLOW_CALL_MAX_CHILDREN children at most (issue 27)."""
    settings.FLOW_CALL_MAX_CHILDREN = 3
    body = body_flow(alice)

    run = run_flow(looping(alice, body), {"items": [1, 2, 3, 4, 5]}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "too_many_calls"
    assert "3" in run.error["message"]
    assert FlowRun.objects.filter(flow=body).count() == 3


def test_the_cap_counts_children_at_every_depth_under_the_root(alice, settings):
    settings.FLOW_CALL_MAX_CHILDREN = 3
    leaf = body_flow(alice)
    nodes, edges = chain(
        trigger(), node("call", "call_flow", flow_id=str(leaf.id), mode="wait")
    )
    middle = FlowFactory(created_by=alice, name="Middle", nodes=nodes, edges=edges)

    run = run_flow(looping(alice, middle), {"items": [1, 2]}, "manual")

    assert run.status == "failed"
    children = FlowRun.objects.filter(trigger="call")
    assert children.count() == 3  # middle, its leaf, the second middle
    assert {child.request_meta["call_root"] for child in children} == {str(run.id)}
    second = FlowRun.objects.filter(flow=middle).order_by("created_at").last()
    assert second.error["code"] == "too_many_calls"
