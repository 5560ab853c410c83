"""Error paths: a node with `error_output` that fails sends its error out of
its `error` handle and the run goes on; without it, the run fails as before."""

from __future__ import annotations

import pytest

from flows.engine import background, run_flow
from flows.graph import validate_graph
from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger

pytestmark = pytest.mark.django_db


def guarded(source: str, *, error_output=True, retry=None):
    """trigger -> risky; risky -> happy (ordinary edge), risky.error -> rescue."""
    risky = code("risky", source)
    if error_output is not None:
        risky["error_output"] = error_output
    if retry:
        risky["retry"] = retry
    nodes = [
        trigger(),
        risky,
        code("happy", "return {ok: prev};"),
        code(
            "rescue",
            "return {caught: prev.code, said: prev.message, at: prev.node_id};",
        ),
    ]
    edges = [
        edge("trigger", "risky"),
        edge("risky", "happy"),
        edge("risky", "rescue", "error"),
    ]
    return FlowFactory(nodes=nodes, edges=edges)


def statuses(run) -> dict:
    return dict(run.steps.values_list("node_id", "status"))


def test_a_failure_flows_out_of_the_error_handle_and_the_run_succeeds():
    run = run_flow(guarded("throw new Error('bad data');"), {}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded"
    assert run.error is None
    assert statuses(run) == {
        "trigger": "succeeded",
        "risky": "failed",
        "happy": "skipped",
        "rescue": "succeeded",
    }
    rescue = run.results["rescue"]
    assert rescue["caught"] == "code_error"
    assert "bad data" in rescue["said"]
    assert rescue["at"] == "risky"
    assert run.steps.get(node_id="risky").error["code"] == "code_error"


def test_on_success_the_error_handle_does_not_fire():
    run = run_flow(guarded("return 7;"), {}, FlowRun.Trigger.MANUAL)

    assert statuses(run)["happy"] == "succeeded"
    assert statuses(run)["rescue"] == "skipped"
    assert run.results["happy"] == {"ok": 7}


def test_retries_are_spent_before_the_error_handle_fires():
    flow = guarded("throw new Error('x');", retry={"max_attempts": 3})

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded"
    assert len(run.steps.get(node_id="risky").attempts) == 3
    assert statuses(run)["rescue"] == "succeeded"


def test_an_error_edge_from_a_node_without_error_output_is_refused():
    flow = guarded("return 1;", error_output=None)

    details = validate_graph(flow.nodes, flow.edges).as_details()

    assert details["edges"] == [
        {
            "index": 2,
            "field": "sourceHandle",
            "message": "Handle 'error' is not an output of node 'risky'; use null.",
        }
    ]


def test_error_output_must_be_a_boolean():
    flow = guarded("return 1;", error_output="yes")

    details = validate_graph(flow.nodes, flow.edges).as_details()

    assert details["nodes"] == [
        {
            "index": 1,
            "field": "error_output",
            "message": "Error output must be true or false.",
        }
    ]


def test_a_resumed_run_replays_a_stored_failure_down_the_error_branch():
    """As the supervisor leaves it after its worker died past `risky`."""
    flow = guarded("throw new Error('must not run again');")
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)
    stored = {"node_id": "risky", "code": "http_error", "message": "first try"}
    RunStep.objects.create(
        run=run, position=0, node_id="trigger", node_type="webhook", status="succeeded"
    )
    RunStep.objects.create(
        run=run,
        position=1,
        node_id="risky",
        node_type="code",
        status="failed",
        error=stored,
    )
    FlowRun.objects.filter(pk=run.pk).update(attempts=1)

    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    assert run.results["rescue"] == {
        "caught": "http_error",
        "said": "first try",
        "at": "risky",
    }
    assert statuses(run)["happy"] == "skipped"
