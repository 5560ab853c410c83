"""Runs stored once they last (flows/engine/deferred.py).

A fast synchronous run is written once, whole, when it ends; one that lasts is
inserted `running` by the lease thread and updated when it ends. These tests
commit for real (transaction=True), as a server does, so the lease thread's own
connection sees the flow.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import OperationalError, connection

from flows.engine import deferred, run_flow, store
from flows.models import Flow, FlowRun
from flows.nodes import NODE_KINDS
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.waiting import wait_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.timing]


def run_in_thread(flow) -> tuple[threading.Thread, list]:
    runs: list = []

    def target():
        try:
            runs.append(run_flow(flow, {"n": 1}, "manual"))
        finally:
            connection.close()

    thread = threading.Thread(target=target)
    thread.start()
    return thread, runs


def test_a_run_that_lasts_is_visible_running_while_it_runs_and_stored_once(alice):
    nodes, edges = chain(
        trigger(), node("wait", "delay", ms=1500), code("c", "return 2;")
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    started = time.monotonic()
    thread, runs = run_in_thread(flow)

    assert wait_until(lambda: FlowRun.objects.filter(flow=flow).exists(), 5)
    seen_after = time.monotonic() - started
    assert FlowRun.objects.get(flow=flow).status == "running"
    thread.join()

    # The lease thread ticks every 0.25 s and stores runs older than 0.2 s.
    assert seen_after < 1.2
    [stored] = FlowRun.objects.filter(flow=flow)
    assert stored.pk == runs[0].pk
    assert (stored.status, stored.results["c"]) == ("succeeded", 2)
    assert stored.steps.count() == 3


def test_a_fast_run_is_never_seen_running_and_leaves_one_row(alice):
    nodes, edges = chain(trigger(), code("c", "return input.n + 1;"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    runs = [run_flow(flow, {"n": i}, "manual") for i in range(20)]
    time.sleep(0.6)  # two lease-thread ticks: nothing late is stored

    assert FlowRun.objects.filter(flow=flow).count() == 20
    assert {run.status for run in FlowRun.objects.filter(flow=flow)} == {"succeeded"}
    assert sorted(r.results["c"] for r in FlowRun.objects.filter(flow=flow)) == list(
        range(1, 21)
    )
    assert all(not run._state.adding for run in runs)


def test_a_run_ending_while_the_lease_thread_stores_it_is_stored_once(
    alice, monkeypatch
):
    """The lease thread's INSERT is slow; the run ends meanwhile: its end waits
    for that INSERT and updates the row instead of inserting a second one."""
    nodes, edges = chain(trigger(), node("t", "transform", values={"a": 1}))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    inserting = threading.Event()
    insert_run = store.insert_run

    def slow_insert(run, **kwargs):
        inserting.set()
        time.sleep(0.3)
        return insert_run(run, **kwargs)

    monkeypatch.setattr(store, "insert_run", slow_insert)
    transform = NODE_KINDS["transform"]
    original = transform.run

    def lasting(data, ctx):
        def tick():
            try:
                deferred.store_due(now=time.monotonic() + 1)
            finally:
                connection.close()

        threading.Thread(target=tick).start()
        inserting.wait(5)
        return original(data, ctx)

    monkeypatch.setattr(transform, "run", lasting)

    run = run_flow(flow, {}, "manual")

    [stored] = FlowRun.objects.filter(flow=flow)
    assert stored.pk == run.pk
    assert (stored.status, stored.results["t"]) == ("succeeded", {"a": 1})


def test_a_whole_run_insert_whose_answer_was_lost_is_not_stored_twice(
    alice, monkeypatch
):
    """The connection broke after the INSERT committed: the retry finds the row."""
    nodes, edges = chain(trigger(), code("c", "return 1;"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    finish_run = store.finish_run
    calls = []

    def lose_the_answer(run, *args, **kwargs):
        calls.append(run.pk)
        stored = finish_run(run, *args, **kwargs)
        if len(calls) == 1:
            run._state.adding = True  # as the caller saw it: no answer came
            raise OperationalError("server closed the connection unexpectedly")
        return stored

    monkeypatch.setattr(store, "finish_run", lose_the_answer)

    run = run_flow(flow, {}, "manual")

    assert len(calls) == 1  # the retry looked, found the row, wrote nothing
    assert run.status == "succeeded"
    [stored] = FlowRun.objects.filter(flow=flow)
    assert stored.steps.count() == 2


def test_a_fast_run_whose_flow_is_deleted_before_it_ends_answers_flow_deleted(
    alice, monkeypatch
):
    nodes, edges = chain(trigger(), node("t", "transform", values={"a": 1}))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    transform = NODE_KINDS["transform"]
    original = transform.run

    def delete_the_flow(data, ctx):
        Flow.objects.filter(pk=flow.pk).delete()
        return original(data, ctx)

    monkeypatch.setattr(transform, "run", delete_the_flow)

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "flow_deleted"
    assert not FlowRun.objects.exists()
