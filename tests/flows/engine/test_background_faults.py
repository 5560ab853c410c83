"""Background runs over real worker processes, on each task engine: a worker
killed mid-run, and a cancel while a run is going."""

from __future__ import annotations

import time

import pytest

from flows.engine import background
from flows.models import FlowRun, RunStep
from tests.flows.graphs import chain_flow, code, node, trigger
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = [needs_postgres]

SLOW = 90  # seconds: a cold Django process on a loaded 2-core machine


@pytest.fixture
def slow_flow(db):
    """first -> a 2 s delay -> last: time to kill or cancel mid-run."""
    return chain_flow(
        trigger(),
        code("first", "return {n: input.n + 1};"),
        node("wait", "delay", ms=2000),
        code("last", "return {seen: prev.n};"),
    )


def stored_nodes(run) -> list[str]:
    return list(
        RunStep.objects.filter(run=run)
        .order_by("position")
        .values_list("node_id", flat=True)
    )


def status_of(run) -> str:
    return FlowRun.objects.values_list("status", flat=True).get(pk=run.pk)


def test_a_run_whose_worker_was_killed_resumes_and_succeeds_once(
    engine, processes, slow_flow
):
    run = background.enqueue_run(slow_flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    first = processes.worker()
    processes.supervisor()
    # The worker is in the delay: `first` is stored, `wait` is not.
    assert wait_until(lambda: "first" in stored_nodes(run), SLOW), first.output()

    first.kill_9()
    second = processes.worker()

    assert wait_until(lambda: status_of(run) == "succeeded", SLOW), second.output()
    run.refresh_from_db()
    assert run.attempts == 2
    assert run.results["last"] == {"seen": 2}
    # Exactly once: one run, one step per node, none of them doubled.
    assert FlowRun.objects.filter(flow=slow_flow).count() == 1
    assert stored_nodes(run) == ["trigger", "first", "wait", "last"]


@pytest.mark.timing
def test_a_run_cancelled_in_a_delay_stops_within_a_lease_tick(engine, processes):
    # The cancel was seen only before the next node: a run cancelled in an 8 s
    # delay stayed `running` for all of it (issue 27, item 19).
    flow = chain_flow(
        trigger(),
        code("first", "return {n: input.n + 1};"),
        node("wait", "delay", ms=8000),
        code("last", "return {seen: prev.n};"),
    )
    run = background.enqueue_run(flow, {"n": 1}, FlowRun.Trigger.MANUAL)
    worker = processes.worker()
    assert wait_until(lambda: "first" in stored_nodes(run), SLOW), worker.output()
    asked = time.monotonic()

    run.request_cancel()

    assert wait_until(lambda: status_of(run) == "cancelled", 10), worker.output()
    assert time.monotonic() - asked < 2.0
    run.refresh_from_db()
    assert run.error["node_id"] == "wait"
    assert run.error["code"] == "cancelled"
    assert run.error["message"].startswith("The run was cancelled during the delay")
    assert stored_nodes(run) == ["trigger", "first", "wait"]
    assert run.lease_expires_at is None
