"""The queued-runs cap without a count per request (fair_queue.check_room):
exact in one process, a count only every so often far from the cap, every
request counted near it, and the documented bound when other processes queue
for the same workspace between this process's counts."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flows.engine import background, fair_queue
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.webhooks.conftest import post_webhook

pytestmark = pytest.mark.django_db

CAP = 64


@pytest.fixture
def cap(settings):
    settings.QUEUED_RUNS_PER_OWNER = CAP
    return CAP


@pytest.fixture
def flow(alice):
    return FlowFactory(created_by=alice, webhook_response_mode="immediately")


def request_a_run(flow) -> bool:
    """What an async request does: the room check, then the queued run.
    False when refused."""
    try:
        fair_queue.check_room(flow)
    except fair_queue.QueueFull:
        return False
    background.enqueue_run(flow, {}, FlowRun.Trigger.WEBHOOK)
    return True


def another_process_queues(flow, count: int) -> None:
    """Runs queued by other web processes: in the database, unseen here."""
    for _ in range(count):
        background.enqueue_run(flow, {}, FlowRun.Trigger.WEBHOOK)


def counts(queries) -> int:
    return sum("COUNT(" in q["sql"] for q in queries.captured_queries)


def queued(flow) -> int:
    return FlowRun.objects.filter(flow=flow, status="queued").count()


def test_one_process_queues_exactly_the_cap_then_429(client, flow, cap):
    answers = [request_a_run(flow) for _ in range(cap)]

    assert answers == [True] * cap
    response = post_webhook(client, flow, b"{}")
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert queued(flow) == cap


def test_far_from_the_cap_the_queue_is_counted_once_in_a_while(flow, settings):
    settings.QUEUED_RUNS_PER_OWNER = 10_000

    with CaptureQueriesContext(connection) as queries:
        for _ in range(100):
            assert request_a_run(flow)

    assert counts(queries) <= 2  # 100 before: one per request


def test_near_the_cap_every_request_counts(flow, cap):
    another_process_queues(flow, cap - fair_queue.SHARE)

    with CaptureQueriesContext(connection) as queries:
        answers = [request_a_run(flow) for _ in range(fair_queue.SHARE + 1)]

    assert answers == [True] * fair_queue.SHARE + [False]
    assert counts(queries) == fair_queue.SHARE + 1


def test_other_processes_runs_pass_the_cap_by_at_most_the_documented_bound(
    client, flow, cap
):
    assert request_a_run(flow)  # counted: 0 queued, room for 63 more
    bound = (cap - 1) // fair_queue.SHARE
    another_process_queues(flow, cap - 1)  # the queue is full now

    let_through = 0
    while request_a_run(flow):
        let_through += 1

    assert 0 < let_through <= bound
    assert queued(flow) <= cap + bound
    # From then on every request counts and is refused until the queue drains.
    assert post_webhook(client, flow, b"{}").status_code == 429
    assert not request_a_run(flow)


def test_a_refusal_is_not_remembered_room_freed_is_seen_at_once(flow, cap):
    another_process_queues(flow, cap)
    assert not request_a_run(flow)

    taken = FlowRun.objects.filter(flow=flow).first()
    assert background.claim(str(taken.pk))  # a worker took one: room for one

    assert request_a_run(flow)
    assert not request_a_run(flow)
