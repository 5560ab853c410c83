"""Background runs in process: stored queued, claimed once, resumed after the
last stored step. The same over real workers: test_background_faults.py."""

from __future__ import annotations

import pytest
from django_tasks_db.models import DBTaskResult

from accounts.audit.actor import Actor
from flows.engine import background, fair_queue
from flows.history.save import save_flow
from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, edge, node, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def flow(alice):
    nodes, edges = chain(
        trigger(),
        code("first", "return {n: input.n + 1};"),
        node("check", "condition", expression="prev.n > 1"),
        code("last", "return {seen: prev.n};"),
    )
    edges[-1] = edge("check", "last", "true")
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def test_a_background_run_is_stored_queued_and_is_its_own_task(flow):
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)

    run.refresh_from_db()
    assert (run.status, run.background, run.attempts) == ("queued", True, 0)
    assert run.input == {"n": 1}
    assert fair_queue.next_due_run_id() == str(run.id)  # a worker takes it next
    assert not DBTaskResult.objects.exists()


def test_a_worker_executes_it_and_stores_every_step(flow):
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)

    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    assert (run.status, run.attempts, run.lease_expires_at) == ("succeeded", 1, None)
    assert run.results["last"] == {"seen": 2}
    steps = list(run.steps.values_list("node_id", "status", "handle"))
    assert steps == [
        ("trigger", "succeeded", ""),
        ("first", "succeeded", ""),
        ("check", "succeeded", "true"),
        ("last", "succeeded", ""),
    ]


def test_a_second_copy_of_the_task_does_not_run_it_again(flow):
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    background.execute_queued(str(run.id))

    assert background.execute_queued(str(run.id)) is None

    assert RunStep.objects.filter(run=run).count() == 4
    assert FlowRun.objects.get(pk=run.pk).attempts == 1


def left_by_a_dead_worker(run, stored: dict) -> None:
    """`run` as its worker left it on dying: `stored` (node id -> output) are
    its succeeded steps, and one attempt was made."""
    for position, (node_id, output) in enumerate(stored.items()):
        RunStep.objects.create(
            run=run,
            position=position,
            node_id=node_id,
            node_type="code",
            status="succeeded",
            handle="true" if node_id == "check" else "",
            output=output,
        )
    FlowRun.objects.filter(pk=run.pk).update(attempts=1)


def test_a_resumed_run_starts_after_its_last_stored_step(flow):
    """As the supervisor leaves it after its worker died past `check`."""
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    stored = {"trigger": {"n": 1}, "first": {"n": 41}, "check": {"n": 41}}
    left_by_a_dead_worker(run, stored)

    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    # `first` was not run again: `last` saw the stored 41, not 1 + 1.
    assert run.results["last"] == {"seen": 41}
    assert run.attempts == 2
    assert list(run.steps.values_list("node_id", flat=True)) == [
        "trigger",
        "first",
        "check",
        "last",
    ]


def test_a_run_cancelled_while_queued_is_never_executed(flow):
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)

    run.request_cancel()

    assert background.execute_queued(str(run.id)) is None
    run.refresh_from_db()
    assert (run.status, run.error["code"]) == ("cancelled", "cancelled")
    assert not run.steps.exists()


@pytest.mark.django_db(transaction=True)  # the engine closes the lost connection
def test_a_run_that_loses_the_database_mid_run_is_left_for_the_supervisor(
    flow, monkeypatch
):
    """A restart cuts a step write: the run is not `failed` (the flow did
    nothing wrong); it stays `running` with what was stored, to be resumed."""
    from django.db import OperationalError

    from flows.engine import store

    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    write_steps = store.write_steps
    calls = []

    def cut_after_two_writes(steps, **kwargs):
        calls.append(len(steps))
        if len(calls) > 2:
            raise OperationalError("server closed the connection unexpectedly")
        return write_steps(steps, **kwargs)

    monkeypatch.setattr(store, "write_steps", cut_after_two_writes)
    background.execute_queued(str(run.id))

    run.refresh_from_db()
    assert run.status == "running"
    assert run.error is None
    assert list(run.steps.values_list("node_id", flat=True)) == ["trigger", "first"]

    monkeypatch.setattr(store, "write_steps", write_steps)
    FlowRun.objects.filter(pk=run.pk).update(status="queued")  # as the supervisor does
    assert background.execute_queued(str(run.id)) == "succeeded"
    run.refresh_from_db()
    assert run.results["last"] == {"seen": 2}
    assert run.steps.count() == 4


def test_a_run_edited_mid_run_finishes_on_the_graph_it_started_with(flow, alice):
    """Its worker died after `check`; meanwhile alice rewrote `last`. The
    resumed run still runs version 1's `last`, and says so."""
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    stored = {"trigger": {"n": 1}, "first": {"n": 2}, "check": {"n": 2}}
    left_by_a_dead_worker(run, stored)
    nodes = [
        {**n, "data": {**n["data"], "code": "return {edited: true};"}}
        if n["id"] == "last"
        else n
        for n in flow.nodes
    ]
    save_flow(flow, {"nodes": nodes}, actor=Actor.system(), source="edit")
    assert flow.version == 2

    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    assert run.flow_version == 1
    assert run.results["last"] == {"seen": 2}
    flow.refresh_from_db()
    assert flow.version == 2  # the flow itself is left as edited


def test_a_run_queued_before_an_edit_runs_the_graph_it_was_queued_with(flow, alice):
    """Edited while the run waited for a worker: it runs version 1 as queued,
    not the graph the flow holds when a worker takes it."""
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    nodes = [
        {**n, "data": {**n["data"], "code": "return {edited: true};"}}
        if n["id"] == "last"
        else n
        for n in flow.nodes
    ]
    save_flow(flow, {"nodes": nodes}, actor=Actor.system(), source="edit")

    assert background.execute_queued(str(run.id)) == "succeeded"

    run.refresh_from_db()
    assert run.flow_version == 1
    assert run.results["last"] == {"seen": 2}
