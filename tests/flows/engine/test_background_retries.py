"""A background run waiting to retry a node goes back to the queue, so its
worker is free; the attempts made so far travel with it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from flows.engine import background, fair_queue
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = pytest.mark.django_db


def retrying(owner, step, **retry):
    nodes, edges = chain(
        trigger(), code("before", "return 1;"), {**step, "retry": retry}
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_a_long_wait_queues_the_run_again_with_its_attempts(alice):
    flow = retrying(
        alice, code("boom", "throw new Error('down');"), max_attempts=2, delay_ms=3000
    )
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)

    assert background.execute_queued(str(run.id)) == "queued"

    run.refresh_from_db()
    assert run.status == "queued"
    assert run.retry_state["node_id"] == "boom"
    assert [a["status"] for a in run.retry_state["attempts"]] == ["failed"]
    assert list(run.steps.values_list("node_id", flat=True)) == ["trigger", "before"]
    wait = run.run_after - timezone.now()
    assert timedelta(seconds=2) < wait <= timedelta(seconds=3)
    assert fair_queue.next_due_run_id() is None  # no worker takes it before

    assert background.execute_queued(str(run.id)) == "failed"  # after the wait
    run.refresh_from_db()
    step = run.steps.get(node_id="boom")
    assert [a["attempt"] for a in step.attempts] == [1, 2]
    assert run.steps.filter(node_id="before").count() == 1  # not run again


def test_a_short_wait_is_slept_through(alice):
    flow = retrying(
        alice, code("boom", "throw new Error('x');"), max_attempts=2, delay_ms=10
    )
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)

    assert background.execute_queued(str(run.id)) == "failed"
    assert len(FlowRun.objects.get(pk=run.pk).steps.get(node_id="boom").attempts) == 2


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_real_worker_is_free_during_the_wait_and_the_retry_succeeds(
    processes, alice, server, allow_loopback
):
    call = node("call", "http_request", url=base(server) + "/flaky?fail=1")
    flow = retrying(alice, call, max_attempts=3, delay_ms=1500, on=[503])
    processes.worker(env={"HTTP_NODE_ALLOWLIST": "127.0.0.1"})
    run = background.enqueue_run(flow, {}, FlowRun.Trigger.MANUAL)
    seen = set()

    def finished():
        status = FlowRun.objects.values_list("status", flat=True).get(pk=run.pk)
        seen.add(status)
        return status in ("succeeded", "failed")

    assert wait_until(finished, 60, interval=0.1), processes.started[0].output()

    run.refresh_from_db()
    assert run.status == "succeeded"
    assert "queued" in seen  # between the attempts it waited in the queue
    assert [a["status"] for a in run.steps.get(node_id="call").attempts] == [
        "failed",
        "succeeded",
    ]
    assert len(server.hits) == 2
