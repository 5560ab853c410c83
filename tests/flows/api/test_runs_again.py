"""Running a run again: `POST /api/runs/:id/rerun` and `/retry`."""

from __future__ import annotations

import pytest

from accounts.audit.actor import Actor
from accounts.audit.models import AuditEvent
from flows.engine import background
from flows.history.save import save_flow
from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db

FAILING = "if (!input.fixed) throw new Error('the parser broke'); return {n: prev};"
FIXED = "return {fixed: true, body: prev.body};"


@pytest.fixture
def counted_flow(alice, server, allow_loopback):
    """trigger → fetch (an HTTP call the loopback server counts) → parse, a
    code node that fails unless the input says `fixed`."""
    nodes, edges = chain(
        trigger(),
        node("fetch", "http_request", method="GET", url=base(server) + "/json"),
        code("parse", FAILING),
    )
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges, name="Counted")


def fetches(server) -> int:
    return sum(1 for hit in server.hits if hit == "/json")


def failed_run(api, flow) -> FlowRun:
    response = api.post(f"/api/flows/{flow.id}/run", {"order": 7}, format="json")
    assert response.json()["status"] == "failed"
    return FlowRun.objects.get(pk=response.json()["run_id"])


def fix(flow, source=FIXED) -> None:
    """Save the flow with the parse node's code replaced."""
    nodes = [
        {**n, "data": {**n["data"], "code": source}} if n["id"] == "parse" else n
        for n in flow.nodes
    ]
    save_flow(flow, {"nodes": nodes}, actor=Actor.system("test"), source="edit")


def test_a_retry_reuses_what_succeeded_and_runs_the_failed_node_again(
    api, counted_flow, server
):
    run = failed_run(api, counted_flow)
    fix(counted_flow)

    response = api.post(f"/api/runs/{run.id}/retry")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "succeeded"
    assert body["results"]["parse"]["fixed"] is True
    assert body["results"]["fetch"]["body"] == {"items": [1, 2], "ok": True}
    assert fetches(server) == 1  # the HTTP call was not made again
    retried = FlowRun.objects.get(pk=body["run_id"])
    assert retried.retry_of == run
    assert retried.input == {"order": 7}
    assert retried.flow_version == counted_flow.version
    steps = {step.node_id: step for step in retried.steps.all()}
    assert [step.node_id for step in retried.steps.order_by("position")] == [
        "trigger",
        "fetch",
        "parse",
    ]
    assert steps["fetch"].logs[-1] == (
        f"Reused from run {run.id}: the node did not run again."
    )
    assert steps["parse"].status == "succeeded"


def test_a_run_page_answer_names_the_run_a_retry_retried(api, counted_flow):
    run = failed_run(api, counted_flow)
    retried_id = api.post(f"/api/runs/{run.id}/retry").json()["run_id"]

    assert api.get(f"/api/runs/{retried_id}").json()["retry_of"] == str(run.id)
    assert api.get(f"/api/runs/{run.id}").json()["retries"] == [retried_id]


def test_a_node_changed_since_the_run_runs_again_and_so_does_what_it_feeds(
    api, counted_flow, server
):
    run = failed_run(api, counted_flow)
    nodes = [
        {**n, "data": {**n["data"], "url": base(server) + "/json?v=2"}}
        if n["id"] == "fetch"
        else n
        for n in counted_flow.nodes
    ]
    save_flow(counted_flow, {"nodes": nodes}, actor=Actor.system("test"), source="edit")
    fix(counted_flow)

    body = api.post(f"/api/runs/{run.id}/retry").json()

    assert body["status"] == "succeeded"
    assert server.hits.count("/json?v=2") == 1


def test_an_async_retry_is_queued_with_its_reused_steps_and_reuses_them(
    api, counted_flow, server
):
    run = failed_run(api, counted_flow)
    fix(counted_flow)

    response = api.post(f"/api/runs/{run.id}/retry?async=true")

    assert response.status_code == 202
    new_id = response.json()["run_id"]
    assert response.json()["status"] == "queued"
    assert response["Location"] == f"/api/runs/{new_id}"
    queued = FlowRun.objects.get(pk=new_id)
    assert queued.retry_of == run
    assert [s.node_id for s in queued.steps.order_by("position")] == [
        "trigger",
        "fetch",
    ]
    assert background.execute_queued(new_id) == "succeeded"
    assert fetches(server) == 1


def test_a_rerun_runs_every_node_again_with_the_same_input_and_facts(
    api, counted_flow, server
):
    run = failed_run(api, counted_flow)
    FlowRun.objects.filter(pk=run.pk).update(
        trigger="webhook", request_meta={"method": "POST", "path": "/x"}
    )
    fix(counted_flow)

    response = api.post(f"/api/runs/{run.id}/rerun")

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    assert fetches(server) == 2
    again = FlowRun.objects.get(pk=response.json()["run_id"])
    assert (again.trigger, again.input) == ("webhook", {"order": 7})
    assert again.request_meta == {"method": "POST", "path": "/x"}
    assert (again.flow_version, again.retry_of) == (counted_flow.version, None)


def test_an_async_rerun_is_queued(api, alice_flow):
    run = FlowRunFactory(flow=alice_flow, input={"name": "Ada"})

    response = api.post(f"/api/runs/{run.id}/rerun", HTTP_PREFER="respond-async")

    assert response.status_code == 202
    queued = FlowRun.objects.get(pk=response.json()["run_id"])
    assert (queued.status, queued.input) == ("queued", {"name": "Ada"})
    assert background.execute_queued(str(queued.id)) == "succeeded"


@pytest.mark.parametrize(
    ("status", "code"),
    [
        ("succeeded", "run_not_failed"),
        ("cancelled", "run_not_failed"),
        ("queued", "run_unfinished"),
        ("running", "run_unfinished"),
        ("waiting", "run_unfinished"),
    ],
)
def test_a_retry_of_a_run_that_did_not_fail_is_409(api, alice_flow, status, code):
    run = FlowRunFactory(flow=alice_flow, status=status)

    response = api.post(f"/api/runs/{run.id}/retry")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == code
    assert FlowRun.objects.filter(flow=alice_flow).count() == 1


@pytest.mark.parametrize("status", ["failed", "timed_out", "interrupted"])
def test_a_run_that_failed_timed_out_or_was_interrupted_can_be_retried(
    api, alice_flow, status
):
    run = FlowRunFactory(flow=alice_flow, status=status, input={"name": "Ada"})

    response = api.post(f"/api/runs/{run.id}/retry")

    assert response.status_code == 200
    assert response.json()["results"]["greet"] == {"greeting": "hi Ada"}


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_another_users_run_is_not_found(api, bob_flow, verb):
    run = FlowRunFactory(flow=bob_flow, status="failed")

    response = api.post(f"/api/runs/{run.id}/{verb}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert FlowRun.objects.count() == 1


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_an_unknown_run_is_not_found(api, verb):
    response = api.post(f"/api/runs/00000000-0000-0000-0000-000000000000/{verb}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_anonymous_gets_401(anon, alice_flow, verb):
    run = FlowRunFactory(flow=alice_flow, status="failed")

    response = anon.post(f"/api/runs/{run.id}/{verb}")

    assert response.status_code == 401


@pytest.mark.parametrize(
    ("verb", "action"), [("rerun", "run.rerun"), ("retry", "run.retried")]
)
def test_each_is_in_the_audit_log_naming_the_run_it_repeats(
    api, alice, alice_flow, verb, action
):
    run = FlowRunFactory(flow=alice_flow, status="failed")

    new_id = api.post(f"/api/runs/{run.id}/{verb}").json()["run_id"]

    event = AuditEvent.objects.get(action=action)
    assert (event.actor, event.target_id) == (alice, new_id)
    assert event.changes == {"from_run": str(run.id), "flow_id": str(alice_flow.id)}


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_a_synchronous_one_at_the_flows_cap_is_429_and_starts_nothing(
    api, alice_flow, hold_slots, verb
):
    run = FlowRunFactory(flow=alice_flow, status="failed")
    hold_slots(flow_id=alice_flow.pk)

    response = api.post(f"/api/runs/{run.id}/{verb}")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert FlowRun.objects.filter(flow=alice_flow).count() == 1


@pytest.mark.parametrize("verb", ["rerun", "retry"])
def test_a_queued_one_past_the_workspaces_queue_cap_is_429(
    api, alice_flow, settings, verb
):
    settings.QUEUED_RUNS_PER_OWNER = 1
    background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)
    run = FlowRunFactory(flow=alice_flow, status="failed")

    response = api.post(f"/api/runs/{run.id}/{verb}?async=true")

    assert response.status_code == 429
    assert FlowRun.objects.filter(flow=alice_flow).count() == 2


def test_a_retried_stop_node_runs_again(api, alice):
    nodes, edges = chain(
        trigger(),
        node("halt", "stop", outcome="fail", code="nope", message="{{ input.why }}"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    run = failed_run(api, flow)
    halt = {**nodes[1], "data": {**nodes[1]["data"], "outcome": "succeed"}}
    save_flow(
        flow, {"nodes": [nodes[0], halt]}, actor=Actor.system("test"), source="edit"
    )

    body = api.post(f"/api/runs/{run.id}/retry").json()

    assert body["status"] == "succeeded"
