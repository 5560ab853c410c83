"""`run_once` (flows/engine/once.py): one delivery, sent twice at once on each
path, makes exactly one run; a new background delivery pays for no lookup.

The schedule tick's race through the scheduler is in
tests/flows/schedules/test_scheduler.py; two web processes racing one signed
delivery in tests/webhooks/test_views_two_servers.py; a repeat answered though
the queue is full in tests/flows/api/test_runs_async_cap.py.
"""

from __future__ import annotations

import json
import threading

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from flows.engine.once import run_once
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger

TICK = "schedule:2026-11-24T09:00:00Z"


def twice_at_once(send) -> list:
    """`send()` in two threads released together; their answers."""
    barrier, answers = threading.Barrier(2), []

    def copy():
        barrier.wait()
        try:
            answers.append(send())
        except Exception as error:  # shown by the assertion below
            answers.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=copy) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def post_key(flow, **headers):
    return Client().generic(
        "POST",
        f"/api/webhooks/{flow.id}",
        json.dumps({"order": 42}),
        CONTENT_TYPE="application/json",
        HTTP_IDEMPOTENCY_KEY="order-42",
        **headers,
    )


def warm_up(flow):
    """One request without an id first: the first request's lazy imports and
    caches are not what two threads should race over."""
    answer = Client().post(f"/api/webhooks/{flow.id}", {}, "application/json")
    assert answer.status_code == 200


@pytest.mark.django_db(transaction=True)
def test_one_key_sent_twice_at_once_to_a_synchronous_webhook_runs_once(alice, settings):
    # Room for both copies under every cap: the second meets the first's run,
    # not a full slot (a 429 would prove nothing about the delivery).
    settings.SYNC_RUNS_PER_FLOW = settings.SYNC_RUNS_PER_OWNER = 4
    settings.SYNC_RUNS_PER_ACCOUNT = settings.SYNC_RUNS_PER_PROCESS = 4
    nodes, edges = chain(trigger(), node("wait", "delay", ms=800))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    warm_up(flow)

    answers = twice_at_once(lambda: post_key(flow))

    assert sorted(answer.status_code for answer in answers) == [200, 409]
    run = FlowRun.objects.exclude(delivery_id="").get(flow=flow)
    ran = next(answer for answer in answers if answer.status_code == 200)
    assert ran.json()["run_id"] == str(run.id)
    assert run.status == FlowRun.Status.SUCCEEDED


@pytest.mark.django_db(transaction=True)
def test_one_key_sent_twice_at_once_to_a_202_webhook_queues_once(alice):
    flow = FlowFactory(created_by=alice)
    warm_up(flow)

    answers = twice_at_once(lambda: post_key(flow, HTTP_PREFER="respond-async"))

    assert sorted(answer.status_code for answer in answers) == [202, 409]
    run = FlowRun.objects.exclude(delivery_id="").get(flow=flow)
    queued = next(answer for answer in answers if answer.status_code == 202)
    assert queued.json() == {"run_id": str(run.id), "status": "queued"}
    assert list(FlowRun.objects.filter(status="queued")) == [run]  # one to execute


@pytest.mark.django_db(transaction=True)
def test_one_tick_queued_twice_at_once_is_one_run_and_one_repeat():
    flow = FlowFactory()

    def fire():
        return run_once(flow, {}, "schedule", delivery_id=TICK, background=True)

    answers = twice_at_once(fire)

    run = FlowRun.objects.get(flow=flow)
    assert sorted(repeat for _, repeat in answers) == [False, True]
    assert [once.run.pk for once in answers] == [run.pk, run.pk]
    assert run.status == "queued"  # the one run a worker executes


@pytest.mark.django_db
def test_a_new_background_delivery_is_claimed_without_a_lookup():
    flow = FlowFactory()

    with CaptureQueriesContext(connection) as queries:
        run, repeat = run_once(flow, {}, "schedule", delivery_id=TICK, background=True)

    assert not repeat
    assert run.delivery_id == TICK
    assert not [q for q in queries if q["sql"].lstrip().upper().startswith("SELECT")]
