"""An enqueue alone in its transaction (a 202's) wakes the workers after its
commit, one NOTIFY per burst (flows/engine/queue_notify.py); every other
enqueue notifies in its transaction: a run's by its statement, another task's
by the queue table's trigger, a run queued again by an UPDATE with it."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.utils import timezone

from flows.engine import enqueue_db, queue_notify, supervisor
from flows.engine.background import enqueue_run
from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.engine.conftest import timed_wait
from tests.processes import needs_postgres
from tests.tasks import note_pid
from tests.waiting import wait_until

pytestmark = [
    pytest.mark.django_db(transaction=True),
    needs_postgres,
    pytest.mark.timing,
]


@pytest.fixture
def notifier(monkeypatch):
    """A notifier of this test's own."""
    own = queue_notify.Notifier()
    monkeypatch.setattr(enqueue_db, "notifier", own)
    return own


@pytest.fixture
def flow(alice):
    return FlowFactory(created_by=alice)


def in_a_thread(function, *args):
    """Run `function` in a thread of its own (its own connection, autocommit,
    as a request's), after 0.2 s."""

    def run():
        try:
            function(*args)
        finally:
            connections.close_all()

    threading.Timer(0.2, run).start()


def queue_a_run(flow):
    return enqueue_run(flow, {}, FlowRun.Trigger.WEBHOOK)


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_wait_ends_as_soon_as_a_202_run_is_queued_and_visible(wakeup, notifier, flow):
    in_a_thread(queue_a_run, flow)

    waited = timed_wait(wakeup, 10)

    assert 0.15 < waited < 2, waited
    assert FlowRun.objects.filter(status="queued").count() == 1  # visible
    assert wait_until(lambda: notifier.sent == 1)


def test_an_enqueue_that_notifies_after_commit_sends_none_in_its_statement(
    wakeup, notifier, flow, monkeypatch
):
    monkeypatch.setattr(notifier, "wake_workers", lambda alias: None)
    in_a_thread(queue_a_run, flow)

    assert timed_wait(wakeup, 1) > 0.9  # nobody notified: the poll's interval
    assert FlowRun.objects.filter(status="queued").count() == 1


def test_other_enqueues_still_notify_in_their_transaction(
    wakeup, notifier, flow, tmp_path
):
    def inside_a_larger_transaction():
        with transaction.atomic():
            queue_a_run(flow)

    in_a_thread(inside_a_larger_transaction)
    assert timed_wait(wakeup, 10) < 2
    in_a_thread(note_pid.enqueue, str(tmp_path / "notes"))  # the engine's own
    assert timed_wait(wakeup, 10) < 2
    assert notifier.sent == 0


def test_a_burst_of_enqueues_shares_its_notifies(wakeup, notifier, flow, monkeypatch):
    gate = threading.Event()
    send = notifier._send

    def held_send():
        gate.wait(10)  # the first NOTIFY takes long: the burst piles up
        send()

    monkeypatch.setattr(notifier, "_send", held_send)
    for _ in range(20):
        queue_a_run(flow)
    gate.set()

    assert timed_wait(wakeup, 10) < 2
    time.sleep(0.3)
    assert 1 <= notifier.sent <= 2  # the one held, and one for all after it
    assert FlowRun.objects.filter(status="queued").count() == 20


def test_a_steady_stream_of_enqueues_shares_notifies_too(
    wakeup, notifier, flow, monkeypatch
):
    # One 202 at a time, each committed before the next: no burst piles up
    # behind a slow NOTIFY, yet they do not cost a NOTIFY each. (A window of
    # 2 s instead of 5 ms, so that the enqueues fit in it on any machine.)
    monkeypatch.setattr(queue_notify, "COALESCE_SECONDS", 2.0)
    queue_a_run(flow)
    assert timed_wait(wakeup, 10) < 1  # the first is sent at once
    for _ in range(19):
        queue_a_run(flow)

    assert timed_wait(wakeup, 10) < 3
    time.sleep(0.3)
    assert notifier.sent == 2  # the first, and one for the 19 in its window
    assert FlowRun.objects.filter(status="queued").count() == 20


def test_a_run_the_supervisor_queues_again_wakes_the_workers(wakeup, flow):
    stranded = FlowRunFactory(
        flow=flow,
        status="running",
        background=True,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
    )

    in_a_thread(supervisor.recover)

    assert timed_wait(wakeup, 10) < 2
    stranded.refresh_from_db()
    assert stranded.status == "queued"
