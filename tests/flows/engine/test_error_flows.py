"""Error flows: a failed run starts its flow's error flow (trigger `error`),
both runs link to each other, and an error flow's failure starts nothing."""

from __future__ import annotations

import pytest

from accounts.workspaces.personal import personal_workspace
from flows.engine import background, run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db


def flow_of(owner, name, source, **fields):
    nodes, edges = chain(trigger(), code("work", source))
    return FlowFactory(created_by=owner, name=name, nodes=nodes, edges=edges, **fields)


def test_a_failed_run_queues_its_error_flow_with_what_went_wrong(alice):
    handler = flow_of(alice, "handler", "return {saw: input.error.code};")
    failing = flow_of(alice, "failing", "throw new Error('boom');", error_flow=handler)

    run = run_flow(failing, {}, FlowRun.Trigger.WEBHOOK)

    assert run.status == "failed"
    error_run = FlowRun.objects.get(flow=handler)
    assert (error_run.trigger, error_run.status) == ("error", "queued")
    assert error_run.error_of_id == run.id
    assert list(run.error_runs.all()) == [error_run]
    assert error_run.input == {
        "run_id": str(run.id),
        "flow_id": str(failing.id),
        "node_id": "work",
        "error": run.error,
    }
    assert background.execute_queued(str(error_run.id)) == "succeeded"
    error_run.refresh_from_db()
    assert error_run.results["work"] == {"saw": "code_error"}


def test_a_succeeded_run_starts_no_error_flow(alice):
    handler = flow_of(alice, "handler", "return 1;")
    fine = flow_of(alice, "fine", "return 2;", error_flow=handler)

    run_flow(fine, {}, FlowRun.Trigger.MANUAL)

    assert not FlowRun.objects.filter(flow=handler).exists()


def test_an_error_flow_that_fails_never_starts_a_chain(alice):
    second = flow_of(alice, "second", "throw new Error('also broken');")
    handler = flow_of(alice, "handler", "throw new Error('broken');", error_flow=second)
    failing = flow_of(alice, "failing", "throw new Error('boom');", error_flow=handler)

    run_flow(failing, {}, FlowRun.Trigger.MANUAL)
    error_run = FlowRun.objects.get(flow=handler)
    background.execute_queued(str(error_run.id))

    error_run.refresh_from_db()
    assert error_run.status == "failed"
    assert not FlowRun.objects.filter(flow=second).exists()


def test_an_error_flow_moved_to_another_workspace_is_not_started(alice, bob):
    handler = flow_of(alice, "handler", "return 1;")
    failing = flow_of(alice, "failing", "throw new Error('boom');", error_flow=handler)
    handler.workspace = personal_workspace(bob)
    handler.save()

    run_flow(failing, {}, FlowRun.Trigger.MANUAL)

    assert not FlowRun.objects.filter(flow=handler).exists()


def test_the_run_api_links_both_runs(api, alice):
    handler = flow_of(alice, "handler", "return 1;")
    failing = flow_of(alice, "failing", "throw new Error('boom');", error_flow=handler)
    run = run_flow(failing, {}, FlowRun.Trigger.MANUAL)
    error_run = FlowRun.objects.get(flow=handler)

    failed = api.get(f"/api/runs/{run.id}").json()
    handled = api.get(f"/api/runs/{error_run.id}").json()

    assert failed["error_runs"] == [str(error_run.id)]
    assert failed["error_of"] is None
    assert handled["error_of"] == str(run.id)
    assert handled["trigger"] == "error"
