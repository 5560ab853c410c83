"""Fair claiming: a worker serves the owner with the fewest runs going, so one
owner's twenty queued runs do not hold another's run behind them."""

from __future__ import annotations

import pytest

from flows.engine import background, fair_queue
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain_flow, node, trigger
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db


def queue(flow, count=1) -> list[str]:
    return [
        str(background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL).id)
        for _ in range(count)
    ]


def test_a_task_of_a_busier_owner_executes_the_other_owners_run(alice, bob):
    alice_flow, bob_flow = FlowFactory(created_by=alice), FlowFactory(created_by=bob)
    going, *alices = queue(alice_flow, 4)
    background.claim(going)  # alice has a run going, bob none
    (bobs,) = queue(bob_flow)

    assert fair_queue.next_run_id(alices[0]) == bobs
    assert background.execute_queued(alices[0]) == "succeeded"
    assert FlowRun.objects.get(pk=bobs).status == "succeeded"
    assert FlowRun.objects.get(pk=alices[0]).status == "queued"


def test_with_as_many_running_the_owner_with_fewer_queued_goes_first(alice, bob):
    alices = queue(FlowFactory(created_by=alice), 5)
    (bobs,) = queue(FlowFactory(created_by=bob))

    assert fair_queue.next_run_id(alices[0]) == bobs


def test_an_owner_no_busier_than_the_others_keeps_its_own_order(alice, bob):
    alices = queue(FlowFactory(created_by=alice), 2)
    bobs = queue(FlowFactory(created_by=bob), 3)

    assert fair_queue.next_run_id(alices[1]) == alices[1]
    assert fair_queue.next_run_id(bobs[0]) == alices[0]  # bob has more queued


def test_a_task_whose_run_was_taken_executes_another_or_nothing(alice, bob):
    (alices,) = queue(FlowFactory(created_by=alice))
    (bobs,) = queue(FlowFactory(created_by=bob))
    assert background.execute_queued(bobs) == "succeeded"

    assert background.execute_queued(bobs) == "succeeded"  # alice's, by bob's task
    assert FlowRun.objects.get(pk=alices).status == "succeeded"
    assert background.execute_queued(alices) is None  # nothing left


def test_a_run_waiting_to_retry_is_taken_only_by_its_own_task(alice, bob):
    waiting, other = queue(FlowFactory(created_by=alice), 2)
    FlowRun.objects.filter(pk=waiting).update(
        retry_state={"node_id": "x", "attempts": []}
    )
    (bobs,) = queue(FlowFactory(created_by=bob))
    background.claim(bobs)

    assert fair_queue.next_run_id(bobs) == other
    assert fair_queue.next_run_id(waiting) == waiting


@needs_postgres
@pytest.mark.timing
@pytest.mark.processes
def test_one_owners_twenty_runs_do_not_hold_another_owners_run_behind_them(
    engine, processes, alice, bob
):
    def slow(owner):
        return chain_flow(trigger(), node("wait", "delay", ms=400), created_by=owner)

    alices = queue(slow(alice), 20)
    for _ in range(2):
        processes.worker()
    assert wait_until(
        lambda: FlowRun.objects.filter(status="running").exists(), 90, interval=0.05
    )
    (bobs,) = queue(slow(bob))

    assert wait_until(
        lambda: not FlowRun.objects.exclude(status="succeeded").exists(), 90
    ), processes.started[0].output()
    started = {
        str(pk): at for pk, at in FlowRun.objects.values_list("pk", "started_at")
    }
    later = sum(1 for run in alices if started[run] > started[bobs])
    # First in, first out, bob's run started after all twenty of alice's.
    assert later >= 15
