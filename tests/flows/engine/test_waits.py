"""A wait node parks its run `waiting`, holding nothing; the supervisor wakes a
timed wait, the resume URL a callback wait, and a worker resumes the run."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from flows.engine import background, run_flow, supervisor, waits, wake
from flows.engine.lease import _active
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db


def waiting_flow(owner, wait: dict, after: str = "return {after: prev};"):
    nodes, edges = chain(trigger(), code("before", "return {n: 1};"), wait)
    nodes.append(code("after", after))
    edges.append({"id": "e", "source": "approve", "target": "after"})
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def callback(**data):
    return node("approve", "wait", **{"mode": "callback", **data})


def expire(run):
    """Move the run's wake time into the past, as if the wait had passed."""
    FlowRun.objects.filter(pk=run.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_synchronous_run_that_reaches_a_wait_is_stored_waiting(alice):
    flow = waiting_flow(alice, callback(timeout_s=600))

    run = run_flow(flow, {"x": 1}, FlowRun.Trigger.MANUAL)

    stored = FlowRun.objects.get(pk=run.pk)
    assert run.status == stored.status == "waiting"
    assert stored.background is True  # a worker resumes it
    assert stored.wait_state["node_id"] == "approve"
    assert stored.wait_state["mode"] == "callback"
    wake_in = stored.lease_expires_at - timezone.now()
    assert timedelta(seconds=590) < wake_in <= timedelta(seconds=600)
    assert list(stored.steps.values_list("node_id", flat=True)) == [
        "trigger",
        "before",
    ]
    assert stored.results == {"trigger": {"x": 1}, "before": {"n": 1}}
    assert str(run.pk) not in _active  # no lease held: nothing executes it


def test_a_posted_callback_resumes_the_run_with_what_was_sent(alice):
    flow = waiting_flow(alice, callback())
    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)
    received = {"approved": True, "body": {"ok": 1}, "query": {}, "received_at": "t"}

    assert wake.resume(run.pk, "approve", received) is True
    assert FlowRun.objects.get(pk=run.pk).status == "queued"
    assert background.execute_queued(str(run.pk)) == "succeeded"

    run.refresh_from_db()
    assert run.results["approve"] == received
    assert run.results["after"] == {"after": received}
    assert run.steps.filter(node_id="before").count() == 1  # replayed, not rerun


def test_a_second_callback_is_refused(alice):
    flow = waiting_flow(alice, callback())
    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)
    received = {"approved": True, "body": None, "query": {}, "received_at": "t"}

    assert wake.resume(run.pk, "approve", received) is True
    assert wake.resume(run.pk, "approve", received) is False


def test_a_callback_to_another_node_does_not_resume_the_run(alice):
    run = run_flow(waiting_flow(alice, callback()), {}, FlowRun.Trigger.MANUAL)

    assert wake.resume(run.pk, "before", {"approved": True}) is False
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"


def test_a_callback_after_the_timeout_is_refused(alice):
    run = run_flow(waiting_flow(alice, callback()), {}, FlowRun.Trigger.MANUAL)
    expire(run)

    assert wake.resume(run.pk, "approve", {"approved": True}) is False


def test_a_timed_out_callback_fails_the_node_by_default(alice):
    run = run_flow(
        waiting_flow(alice, callback(timeout_s=5)), {}, FlowRun.Trigger.MANUAL
    )
    expire(run)

    assert supervisor.recover().woken == 1
    assert background.execute_queued(str(run.pk)) == "failed"
    run.refresh_from_db()
    assert run.error == {
        "node_id": "approve",
        "code": "wait_timeout",
        "message": "Nobody resumed the run within 5 s.",
    }


def test_a_timed_out_callback_may_continue(alice):
    wait = callback(timeout_s=5, on_timeout="continue")
    run = run_flow(waiting_flow(alice, wait), {}, FlowRun.Trigger.MANUAL)
    expire(run)

    supervisor.recover()
    assert background.execute_queued(str(run.pk)) == "succeeded"
    run.refresh_from_db()
    assert run.results["after"] == {"after": {"timed_out": True}}


def test_the_supervisor_wakes_a_duration_wait_only_once_it_is_over(alice):
    wait = node("approve", "wait", mode="duration", seconds=60)
    run = run_flow(waiting_flow(alice, wait), {"x": 2}, FlowRun.Trigger.MANUAL)

    assert supervisor.recover().woken == 0
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"
    expire(run)
    assert supervisor.recover().woken == 1
    assert supervisor.recover().woken == 0  # woken once

    assert background.execute_queued(str(run.pk)) == "succeeded"
    run.refresh_from_db()
    assert run.results["approve"] == {"n": 1}  # a timed wait passes its input on


def test_an_until_wait_in_the_past_goes_on_at_once(alice):
    wait = node("approve", "wait", mode="until", until="{{ input.at }}")
    flow = waiting_flow(alice, wait)

    run = run_flow(flow, {"at": "2020-01-01T00:00:00Z"}, FlowRun.Trigger.MANUAL)

    assert run.status == "succeeded"


def test_an_until_wait_wakes_at_its_time(alice):
    at = (timezone.now() + timedelta(hours=2)).isoformat()
    wait = node("approve", "wait", mode="until", until="{{ input.at }}")

    run = run_flow(waiting_flow(alice, wait), {"at": at}, FlowRun.Trigger.MANUAL)

    stored = FlowRun.objects.get(pk=run.pk)
    assert stored.status == "waiting"
    assert stored.lease_expires_at.isoformat() == at


def test_an_until_that_is_not_a_time_fails_the_node(alice):
    wait = node("approve", "wait", mode="until", until="{{ input.at }}")

    run = run_flow(waiting_flow(alice, wait), {"at": "soon"}, FlowRun.Trigger.MANUAL)

    assert run.status == "failed"
    assert run.error["code"] == "invalid_time"


def test_a_waiting_run_can_be_cancelled_and_then_not_resumed(alice):
    run = run_flow(waiting_flow(alice, callback()), {}, FlowRun.Trigger.MANUAL)

    FlowRun.objects.get(pk=run.pk).request_cancel()

    run.refresh_from_db()
    assert run.status == "cancelled"
    assert run.error["message"] == "The run was cancelled while it waited."
    assert wake.resume(run.pk, "approve", {"approved": True}) is False


def test_templates_see_the_resume_url_of_a_later_wait_node(alice, settings):
    settings.BASE_URL = "https://weir.example"
    nodes, edges = chain(
        trigger(),
        node("mail", "transform", values={"link": "{{ run.resume_urls.approve }}"}),
        callback(),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    link = run.results["mail"]["link"]
    assert link == "https://weir.example" + waits.resume_path(run.pk, "approve")
    assert link.startswith(f"https://weir.example/api/resume/{run.pk}/approve/")


def test_a_sandboxed_expression_sees_the_run_too(alice):
    nodes, edges = chain(
        trigger(),
        node("mail", "transform", values={"id": "{{ run.id.toUpperCase() }}"}),
    )
    run = run_flow(
        FlowFactory(created_by=alice, nodes=nodes, edges=edges),
        {},
        FlowRun.Trigger.MANUAL,
    )

    assert run.results["mail"]["id"] == str(run.pk).upper()


def test_the_token_is_bound_to_the_run_and_the_node():
    token = waits.resume_token("run-1", "approve")

    assert waits.token_matches("run-1", "approve", token)
    assert not waits.token_matches("run-2", "approve", token)
    assert not waits.token_matches("run-1", "other", token)
