"""Waiting runs over real processes: they hold no worker, and a timed wait
survives a supervisor restart."""

from __future__ import annotations

import pytest
from django.test import Client

from flows.engine import background, waits
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = [needs_postgres, pytest.mark.django_db(transaction=True)]

SLOW = 90  # seconds: a cold Django process on a loaded 2-core machine


def status_of(run) -> str:
    return FlowRun.objects.values_list("status", flat=True).get(pk=run.pk)


def waiting_flow(alice, wait: dict):
    nodes, edges = chain(trigger(), wait, code("after", "return {done: true};"))
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def test_two_runs_waiting_on_callbacks_leave_the_one_worker_free(processes, alice):
    waiting = waiting_flow(alice, node("approve", "wait", mode="callback"))
    quick = FlowFactory(created_by=alice)  # a webhook and a code node
    worker = processes.worker()
    first, second = (
        background.enqueue_run(waiting, {}, FlowRun.Trigger.MANUAL) for _ in range(2)
    )
    assert wait_until(
        lambda: {status_of(first), status_of(second)} == {"waiting"}, SLOW
    ), worker.output()

    third = background.enqueue_run(quick, {}, FlowRun.Trigger.MANUAL)

    assert wait_until(lambda: status_of(third) == "succeeded", SLOW), worker.output()
    assert {status_of(first), status_of(second)} == {"waiting"}
    for run in (first, second):  # and both go on once answered
        path = waits.resume_path(run.pk, "approve")
        response = Client().post(path, {}, content_type="application/json")
        assert response.status_code == 202
    assert wait_until(
        lambda: {status_of(first), status_of(second)} == {"succeeded"}, SLOW
    ), worker.output()


def test_a_duration_wait_survives_a_supervisor_restart(processes, alice):
    flow = waiting_flow(alice, node("pause", "wait", mode="duration", seconds=3))
    worker = processes.worker()
    first = processes.supervisor()
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)
    assert wait_until(lambda: status_of(run) == "waiting", SLOW), worker.output()

    first.kill_9()  # before the wait is over
    assert status_of(run) == "waiting"
    processes.supervisor()

    assert wait_until(lambda: status_of(run) == "succeeded", SLOW), worker.output()
    run.refresh_from_db()
    assert run.results["after"] == {"done": True}
    assert list(run.steps.values_list("node_id", flat=True)) == [
        "trigger",
        "pause",
        "after",
    ]
