"""The call_flow node (flows/nodes/call_flow.py) and the child runs it makes
(flows/engine/calls.py)."""

from __future__ import annotations

from accounts.workspaces.personal import personal_workspace
from flows.engine import run_flow
from flows.engine.new_run import new_run
from flows.engine.runner import Execution
from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, edge, node, trigger


def child_flow(owner, source="return {doubled: input.n * 2};", **fields):
    nodes, edges = chain(trigger(), code("work", source))
    return FlowFactory(
        created_by=owner, nodes=nodes, edges=edges, name="Child", **fields
    )


def caller(owner, child, *after, **data):
    data = {"flow_id": str(child.id), "mode": "wait", **data}
    nodes, edges = chain(trigger(), node("call", "call_flow", **data), *after)
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges, name="Parent")


def test_wait_mode_runs_the_child_and_gives_its_run_id_and_result(alice):
    child = child_flow(alice)

    run = run_flow(caller(alice, child), {"n": 21}, "manual")

    assert run.status == "succeeded", run.error
    output = run.results["call"]
    assert output["result"] == {"doubled": 42}
    child_run = FlowRun.objects.get(pk=output["run_id"])
    assert child_run.flow == child
    assert child_run.trigger == "call"
    assert child_run.called_by_id == run.id
    assert child_run.delivery_id == f"call:{run.id}:call"
    assert list(run.called_runs.all()) == [child_run]


def test_the_input_is_a_template_over_the_parents_values(alice):
    child = child_flow(alice)

    run = run_flow(
        caller(alice, child, input={"n": "{{ input.x }}"}), {"x": 5}, "manual"
    )

    assert run.results["call"]["result"] == {"doubled": 10}


def test_a_childs_response_node_body_is_the_result(alice):
    nodes, edges = chain(
        trigger(),
        node("answer", "response", status=201, body={"ok": "{{ input.n }}"}),
        code("later", "return 'not this';"),
    )
    child = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(caller(alice, child), {"n": 3}, "manual")

    assert run.results["call"]["result"] == {"ok": 3}


def test_a_failed_child_fails_the_node_with_child_failed(alice):
    child = child_flow(alice, "throw new Error('no stock');")

    run = run_flow(caller(alice, child), {"n": 1}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "child_failed"
    assert "no stock" in run.error["message"]
    child_run = run.called_runs.get()
    assert str(child_run.id) in run.error["message"]
    assert child_run.status == "failed"


def test_the_error_output_catches_a_failed_child(alice):
    child = child_flow(alice, "throw new Error('no stock');")
    flow = caller(alice, child, code("after", "return prev.code;"))
    flow.nodes[1]["error_output"] = True
    flow.edges = [
        edge("trigger", "call"),
        edge("call", "after", "error"),
    ]
    flow.save()

    run = run_flow(flow, {"n": 1}, "manual")

    assert run.status == "succeeded"
    assert run.results["after"] == "child_failed"


def test_a_resumed_parent_reuses_the_finished_child(alice):
    """The parent's process died after the child finished but before the
    parent stored its call step: the resumed parent must not call again."""
    child = child_flow(alice, "return {at: Date.now()};")
    flow = caller(alice, child)
    run = new_run(flow, "manual", {"n": 1}, {})
    run.save()
    Execution(flow, run).execute()
    first = run.called_runs.get()
    RunStep.objects.filter(run=run).delete()
    FlowRun.objects.filter(pk=run.id).update(status="running", results={})

    resumed = FlowRun.objects.get(pk=run.id)
    Execution(flow, resumed).execute()

    assert FlowRun.objects.filter(flow=child).count() == 1
    assert resumed.status == "succeeded"
    assert resumed.results["call"]["run_id"] == str(first.id)
    assert resumed.results["call"]["result"] == first.results["work"]


def test_a_flow_that_calls_itself_stops_at_the_depth_limit(alice, settings):
    settings.FLOW_CALL_MAX_DEPTH = 5
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    nodes, edges = chain(
        trigger(), node("call", "call_flow", flow_id=str(flow.id), mode="wait")
    )
    flow.nodes, flow.edges = nodes, edges
    flow.save()

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    runs = FlowRun.objects.filter(flow=flow).order_by("created_at")
    assert runs.count() == 6  # the parent and five calls below it
    deepest = runs.last()
    assert deepest.error["code"] == "call_too_deep"
    assert deepest.request_meta["call_depth"] == 5


def test_an_input_that_does_not_fit_the_childs_schema_fails_invalid_input(alice):
    schema = {
        "type": "object",
        "required": ["n"],
        "properties": {"n": {"type": "number"}},
    }
    child = child_flow(alice, input_schema=schema)

    run = run_flow(caller(alice, child), {"n": "one"}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_input"
    assert "at n" in run.error["message"]
    assert not FlowRun.objects.filter(flow=child).exists()


def test_start_mode_queues_the_child_and_goes_on(alice):
    child = child_flow(alice)

    run = run_flow(caller(alice, child, mode="start"), {"n": 2}, "manual")

    assert run.status == "succeeded"
    child_run = FlowRun.objects.get(flow=child)
    assert run.results["call"] == {"run_id": str(child_run.id), "status": "queued"}
    assert child_run.background is True
    assert child_run.called_by_id == run.id
    assert child_run.request_meta["call_depth"] == 1


def test_a_flow_moved_to_another_workspace_fails_at_run_time(alice, bob):
    child = child_flow(alice)
    flow = caller(alice, child)
    child.workspace = personal_workspace(bob)
    child.save()

    run = run_flow(flow, {"n": 2}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "flow_missing"
    assert not FlowRun.objects.filter(flow=child).exists()


def test_another_users_flow_is_refused_at_save(api, alice, bob):
    bobs = child_flow(bob)
    nodes, edges = chain(
        trigger(), node("call", "call_flow", flow_id=str(bobs.id), mode="wait")
    )

    response = api.post(
        "/api/flows", {"name": "x", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "validation_error"
    assert body["details"]["nodes"][0]["field"] == "data.flow_id"
    assert "in another workspace" in body["details"]["nodes"][0]["message"]


def test_the_run_api_links_parent_and_child_both_ways(api, alice):
    child = child_flow(alice)
    run = run_flow(caller(alice, child), {"n": 1}, "manual")
    child_run = run.called_runs.get()

    parent_view = api.get(f"/api/runs/{run.id}").json()
    child_view = api.get(f"/api/runs/{child_run.id}").json()

    assert parent_view["called_runs"] == [
        {
            "id": str(child_run.id),
            "flow_id": str(child.id),
            "status": "succeeded",
            "node_id": "call",
        }
    ]
    assert child_view["called_by"] == str(run.id)


def test_the_run_pages_link_parent_and_child(alice_client, alice):
    child = child_flow(alice)
    run = run_flow(caller(alice, child), {"n": 1}, "manual")
    child_run = run.called_runs.get()

    parent_page = alice_client.get(f"/runs/{run.id}/").content.decode()
    child_page = alice_client.get(f"/runs/{child_run.id}/").content.decode()

    assert f"/runs/{child_run.id}" in parent_page
    assert "It called 1 run:" in parent_page
    assert f"/runs/{run.id}" in child_page
    assert "Called by" in child_page


def test_a_call_with_no_flow_chosen_is_refused_at_save(api, alice):
    nodes, edges = chain(trigger(), node("call", "call_flow", flow_id="", mode="wait"))

    response = api.post(
        "/api/flows", {"name": "x", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 400
    [problem] = response.json()["error"]["details"]["nodes"]
    assert problem == {
        "index": 1,
        "field": "data.flow_id",
        "message": "Choose the flow to call.",
    }


def test_a_child_that_starts_waiting_fails_the_call_with_child_waiting(alice):
    nodes, edges = chain(trigger(), node("pause", "wait", mode="duration", seconds=60))
    child = FlowFactory(created_by=alice, nodes=nodes, edges=edges, name="Slow child")

    run = run_flow(caller(alice, child), {"n": 1}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "child_waiting"
    assert "mode start" in run.error["message"]
    child_run = FlowRun.objects.get(flow=child)
    assert child_run.status == "waiting"
    assert child_run.called_by_id == run.id


def planted_run(child, delivery_id: str) -> FlowRun:
    """A run someone else made under a child's delivery id, with a result
    the parent must never read (issue 27)."""
    return FlowRun.objects.create(
        flow=child,
        trigger="webhook",
        status="succeeded",
        delivery_id=delivery_id,
        input={"n": 1},
        results={"work": {"doubled": "planted"}},
        response={"status": 200, "body": {"doubled": "planted"}},
    )


def test_a_run_planted_under_the_childs_delivery_id_is_not_taken_as_the_child(alice):
    child = child_flow(alice)
    flow = caller(alice, child)
    run = new_run(flow, "manual", {"n": 1}, {})
    run.save()
    planted_run(child, f"call:{run.id}:call")

    Execution(flow, run).execute()

    assert run.status == "failed"
    assert run.error["code"] == "delivery_taken"
    assert "planted" not in str(run.results)
    assert not run.called_runs.exists()


def test_start_mode_does_not_report_a_planted_run_as_its_child(alice):
    child = child_flow(alice)
    flow = caller(alice, child, mode="start")
    run = new_run(flow, "manual", {"n": 1}, {})
    run.save()
    planted = planted_run(child, f"call:{run.id}:call")

    Execution(flow, run).execute()

    assert run.status == "failed"
    assert run.error["code"] == "delivery_taken"
    assert str(planted.id) not in str(run.results)


def test_a_callee_with_no_webhook_trigger_and_its_webhook_off_is_called(alice):
    """call_flow needs no public webhook of the flow it calls: a schedule-only
    flow, whose webhook is off, is called as any other."""
    schedule = node("tick", "schedule", cron="0 9 * * 1-5", enabled=False)
    nodes, edges = chain(schedule, code("work", "return {doubled: input.n * 2};"))
    child = FlowFactory(
        created_by=alice, nodes=nodes, edges=edges, webhook_enabled=False
    )

    run = run_flow(caller(alice, child), {"n": 4}, "manual")

    assert run.status == "succeeded", run.error
    assert run.results["call"]["result"] == {"doubled": 8}
