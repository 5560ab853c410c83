"""The stop node (flows/nodes/stop.py) and how the engine ends a run for it
(flows/engine/stops.py)."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.engine.error_flows import start_error_flow
from flows.graph import validate_graph
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger


def stop(outcome="fail", code="order_rejected", message="No {{ input.id }}."):
    return node("stop", "stop", outcome=outcome, code=code, message=message)


def stopped_flow(owner, **stop_data):
    nodes, edges = chain(
        trigger(),
        node("before", "transform", values={"ok": True}),
        stop(**stop_data),
        node("after", "transform", values={"never": True}),
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_stop_fail_ends_the_run_failed_with_the_users_code_and_message(alice):
    run = run_flow(stopped_flow(alice), {"id": 42}, "manual")

    assert run.status == "failed"
    assert run.error == {
        "node_id": "stop",
        "code": "order_rejected",
        "message": "No 42.",
    }
    run.refresh_from_db()
    assert run.error["code"] == "order_rejected"


def test_steps_after_a_stop_are_skipped_with_reason_stopped(alice):
    run = run_flow(stopped_flow(alice), {"id": 1}, "manual")

    after = run.steps.get(node_id="after")
    assert after.status == "skipped"
    assert after.error["code"] == "stopped"
    assert "'stop' stopped the run" in after.error["message"]
    assert run.steps.get(node_id="stop").status == "succeeded"
    assert run.steps.get(node_id="before").status == "succeeded"


def test_stop_succeed_ends_the_run_succeeded_with_no_error(alice):
    run = run_flow(stopped_flow(alice, outcome="succeed"), {"id": 1}, "manual")

    assert run.status == "succeeded"
    assert run.error is None
    assert run.steps.get(node_id="after").error["code"] == "stopped"
    assert run.steps.get(node_id="stop").output == {
        "outcome": "succeed",
        "code": "order_rejected",
        "message": "No 1.",
    }


def test_stop_fail_starts_the_error_flow(alice):
    handler = FlowFactory(created_by=alice)
    flow = stopped_flow(alice)
    flow.error_flow = handler
    flow.save()

    run = run_flow(flow, {"id": 1}, "manual")

    error_run = FlowRun.objects.get(flow=handler)
    assert error_run.error_of_id == run.id
    assert error_run.input["error"]["code"] == "order_rejected"
    assert start_error_flow(FlowRun.objects.get(pk=error_run.pk)) is None


def test_a_webhook_whose_flow_stops_failed_answers_500(client, alice):
    flow = stopped_flow(alice)

    response = client.post(
        f"/api/webhooks/{flow.id}", {"id": 9}, content_type="application/json"
    )

    assert response.status_code == 500
    assert response.json()["error"]["code"] == "order_rejected"


def test_a_resumed_run_whose_stop_step_was_stored_stops_again(alice):
    from flows.engine.new_run import new_run
    from flows.engine.runner import Execution

    flow = stopped_flow(alice)
    run = new_run(flow, "manual", {"id": 1}, {})
    run.save()
    output = {"outcome": "fail", "code": "order_rejected", "message": "No 1."}
    stored = [
        {
            "node_id": "trigger",
            "node_type": "webhook",
            "status": "succeeded",
            "handle": "",
            "output": {},
        },
        {
            "node_id": "before",
            "node_type": "transform",
            "status": "succeeded",
            "handle": "",
            "output": {"ok": True},
        },
        {
            "node_id": "stop",
            "node_type": "stop",
            "status": "succeeded",
            "handle": "",
            "output": output,
        },
    ]
    Execution(flow, run, stored_steps=stored).execute()

    assert run.status == "failed"
    assert run.error["code"] == "order_rejected"
    assert run.results.get("after") is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"outcome": "maybe", "code": "x", "message": ""}, "data.outcome"),
        ({"outcome": "fail", "code": "Bad Code", "message": ""}, "data.code"),
        ({"outcome": "fail", "code": "run_timeout", "message": ""}, "data.code"),
        ({"outcome": "fail", "code": "x", "message": "m" * 2001}, "data.message"),
    ],
)
def test_bad_stop_settings_are_refused_at_save(data, field):
    errors = validate_graph([trigger(), node("stop", "stop", **data)], [])

    assert [problem["field"] for problem in errors.nodes] == [field]


def test_a_stop_fail_after_a_response_node_answers_500_like_any_failure(client, alice):
    """docs/webhooks.md: the failure wins; a response is sent only for a run
    that succeeded (the research suggested otherwise; docs/decisions.md)."""
    nodes, edges = chain(
        trigger(),
        node("answer", "response", status=202, body={"queued": True}),
        stop(),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = client.post(
        f"/api/webhooks/{flow.id}", {"id": 9}, content_type="application/json"
    )

    assert response.status_code == 500
    assert response.json()["error"]["code"] == "order_rejected"
    assert FlowRun.objects.get(flow=flow).response["status"] == 202
