"""The database engine's enqueue: the run is its own task, stored by one
statement (flows/engine/enqueue_db.py), and workers take queued runs from the
runs table (`background.execute_next`)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from flows.engine import background
from flows.engine.background import enqueue_run
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def flow(alice):
    nodes, edges = chain(trigger(), code("c", "return input.n * 2;"))
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def writes(queries) -> list[str]:
    return [
        q["sql"].split()[0]
        for q in queries
        if q["sql"].split()[0] in ("INSERT", "UPDATE", "WITH")
    ]


def test_an_async_run_is_stored_by_one_statement_and_no_task_row(flow):
    with CaptureQueriesContext(connection) as queries:
        run = enqueue_run(flow, {"n": 2}, FlowRun.Trigger.WEBHOOK)

    one = ["WITH"] if connection.vendor == "postgresql" else ["INSERT"]
    assert writes(queries) == one
    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.background, stored.input) == (
        "queued",
        True,
        {"n": 2},
    )
    assert stored.run_after is None  # due at once
    assert not DBTaskResult.objects.exists()


def test_a_worker_executes_a_run_enqueued_this_way(flow):
    run = enqueue_run(flow, {"n": 21}, FlowRun.Trigger.WEBHOOK)

    assert background.execute_next()

    assert FlowRun.objects.get(pk=run.pk).results["c"] == 42
    assert not background.execute_next()  # nothing left


def test_runs_are_taken_oldest_first_and_each_once(flow):
    runs = [enqueue_run(flow, {"n": n}, FlowRun.Trigger.WEBHOOK) for n in range(3)]

    while background.execute_next():
        pass

    done = FlowRun.objects.filter(pk__in=[r.pk for r in runs]).order_by("started_at")
    assert [r.pk for r in done] == [r.pk for r in runs]
    assert [(r.status, r.attempts) for r in done] == [("succeeded", 1)] * 3


def test_a_run_is_not_taken_before_its_run_after(flow):
    run = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK)
    FlowRun.objects.filter(pk=run.pk).update(
        run_after=timezone.now() + timedelta(minutes=1)
    )

    assert not background.execute_next()

    FlowRun.objects.filter(pk=run.pk).update(
        run_after=timezone.now() - timedelta(seconds=1)
    )
    assert background.execute_next()
    assert FlowRun.objects.get(pk=run.pk).status == "succeeded"


def test_a_run_another_worker_took_is_not_executed_again(flow):
    run = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK)
    assert background.claim(str(run.pk))  # another worker's

    assert not background.execute_next()

    assert FlowRun.objects.get(pk=run.pk).attempts == 1
    assert not run.steps.exists()


def test_a_delivery_id_is_claimed_by_the_same_one_statement(flow):
    with CaptureQueriesContext(connection) as queries:
        run = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK, delivery_id="d-1")

    one = ["WITH"] if connection.vendor == "postgresql" else ["INSERT"]
    assert writes(queries) == one
    with pytest.raises(background.DeliveryExists) as again:
        enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK, delivery_id="d-1")
    assert again.value.run == run
    assert FlowRun.objects.filter(flow=flow).count() == 1


def test_a_task_queued_before_runs_were_their_own_still_runs_its_run(flow):
    run = enqueue_run(flow, {"n": 4}, FlowRun.Trigger.WEBHOOK)
    background.execute_run.enqueue(str(run.pk))  # as the old enqueue left it

    assert background.execute_queued(str(run.pk)) == "succeeded"
    assert not background.execute_next()
    assert FlowRun.objects.get(pk=run.pk).results["c"] == 8


def test_a_run_that_breaks_its_worker_is_left_to_the_supervisor(flow, monkeypatch):
    broken = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK)
    fine = enqueue_run(flow, {"n": 2}, FlowRun.Trigger.WEBHOOK)
    execute = background.execute_claimed

    def breaks_on_the_first(run_id):
        if run_id == str(broken.pk):
            raise RuntimeError("the engine broke")
        return execute(run_id)

    monkeypatch.setattr(background, "execute_claimed", breaks_on_the_first)

    assert background.execute_next()  # logged; the worker goes on
    assert background.execute_next()

    left = FlowRun.objects.get(pk=broken.pk)
    assert (left.status, left.lease_expires_at is not None) == ("running", True)
    assert FlowRun.objects.get(pk=fine.pk).status == "succeeded"
