"""The scheduler pass: due ticks fire once, missed ticks are skipped or run
once, disabled schedules stay quiet, racing schedulers start one run."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection

from flows.models import Flow, FlowRun
from flows.schedules.scheduler import schedule_pass
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node

pytestmark = pytest.mark.django_db


def scheduled(owner, cron="*/5 * * * *", **data):
    nodes = [
        node("tick", "schedule", cron=cron, timezone="UTC", **data),
        code("work", "return {at: input.scheduled_for};"),
    ]
    return FlowFactory(created_by=owner, nodes=nodes, edges=[edge("tick", "work")])


def at(hour, minute, second=0) -> datetime:
    return datetime(2026, 11, 24, hour, minute, second, tzinfo=UTC)


def looked(flow, when):
    Flow.objects.filter(pk=flow.pk).update(schedule_checked_at=when)


def test_a_new_schedule_starts_from_now_and_fires_at_its_next_tick(alice):
    flow = scheduled(alice)

    assert schedule_pass(at(9, 3)) == 0  # first look: nothing from the past
    assert schedule_pass(at(9, 4, 59)) == 0
    assert schedule_pass(at(9, 5, 1)) == 1

    run = FlowRun.objects.get(flow=flow)
    assert (run.trigger, run.status) == ("schedule", "queued")
    assert run.input == {"scheduled_for": "2026-11-24T09:05:00Z"}
    assert schedule_pass(at(9, 5, 2)) == 0  # the same tick never again


def test_ticks_missed_while_down_are_skipped_by_default(alice):
    flow = scheduled(alice)
    looked(flow, at(6, 0))

    assert schedule_pass(at(9, 2)) == 0  # 9:00 is 2 min old: past the grace

    assert not FlowRun.objects.filter(flow=flow).exists()
    flow.refresh_from_db()
    assert flow.schedule_checked_at == at(9, 2)


def test_run_once_fires_only_the_latest_missed_tick(alice):
    flow = scheduled(alice, missed="run_once")
    looked(flow, at(6, 0))

    assert schedule_pass(at(9, 2)) == 1

    run = FlowRun.objects.get(flow=flow)
    assert run.input == {"scheduled_for": "2026-11-24T09:00:00Z"}


def test_a_disabled_schedule_does_not_fire(alice):
    flow = scheduled(alice, enabled=False)
    looked(flow, at(9, 4))

    assert schedule_pass(at(9, 5, 1)) == 0
    assert not FlowRun.objects.filter(flow=flow).exists()


@pytest.mark.django_db(transaction=True)
def test_two_schedulers_racing_over_one_tick_start_one_run(alice):
    flow = scheduled(alice)
    looked(flow, at(9, 4))
    results, barrier = [], threading.Barrier(2)

    def scheduler():
        barrier.wait()
        try:
            results.append(schedule_pass(at(9, 5, 1)))
        finally:
            connection.close()

    threads = [threading.Thread(target=scheduler) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(results) == [0, 1]
    assert FlowRun.objects.filter(flow=flow).count() == 1


def test_removing_the_schedule_forgets_its_last_look(alice):
    flow = scheduled(alice)
    looked(flow, at(6, 0))
    flow.refresh_from_db()

    flow.nodes = [node("hook", "webhook", method="POST")]
    flow.edges = []
    flow.save()

    flow.refresh_from_db()
    assert (flow.has_schedule, flow.schedule_checked_at) == (False, None)
    assert schedule_pass(at(9, 5, 1) + timedelta(days=1)) == 0


def test_a_planted_flow_that_cannot_fire_is_skipped_and_the_others_fire(alice):
    # Saved before the check existed (or through a shell): 30 February.
    broken = scheduled(alice, cron="0 0 30 2 *")
    healthy = scheduled(alice)
    looked(broken, at(9, 4))
    looked(healthy, at(9, 4))

    assert schedule_pass(at(9, 5, 1)) == 1

    assert FlowRun.objects.get().flow_id == healthy.pk
    broken.refresh_from_db()
    assert broken.schedule_checked_at == at(9, 5, 1)  # looked at, not retried hot


def test_a_deactivated_owners_schedule_is_skipped_and_counted(alice, bob):
    from prometheus_client import REGISTRY

    skipped = scheduled(alice)
    fired = scheduled(bob)
    looked(skipped, at(9, 4))
    looked(fired, at(9, 4))
    alice.is_active = False
    alice.save()
    before = REGISTRY.get_sample_value("weir_schedules_skipped_total") or 0

    assert schedule_pass(at(9, 5, 1)) == 1

    assert FlowRun.objects.get().flow_id == fired.pk
    assert REGISTRY.get_sample_value("weir_schedules_skipped_total") == before + 1
