"""A resumed parent meeting its child still `running` (flows/engine/calls.py).

A worker killed within a lease of inserting a for_each item's child leaves the
child `running` under a lease that outlives the parent's (the child's was set
at its INSERT, the parent's on the tick before), so the supervisor hands the
parent to another worker while the child's lease still runs. The parent must
neither fail `child_running` nor run the child twice.
"""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from flows.engine import background, calls
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db


def loop_over(owner, count):
    nodes, edges = chain(trigger(), code("work", "return {double: input.n * 2};"))
    body = FlowFactory(created_by=owner, nodes=nodes, edges=edges, name="Body")
    nodes, edges = chain(
        trigger(),
        node(
            "loop",
            "for_each",
            items="{{ input.items }}",
            flow_id=str(body.id),
            input={"n": "{{ item }}"},
        ),
    )
    parent = FlowFactory(created_by=owner, nodes=nodes, edges=edges, name="Loop")
    run = background.enqueue_run(parent, {"items": list(range(count))}, "manual")
    return body, run


def left_running(body, run, item, lease_seconds):
    """The child the killed worker was running, its lease `lease_seconds` on."""
    return FlowRun.objects.create(
        flow=body,
        trigger="call",
        status="running",
        called_by=run,
        delivery_id=f"call:{run.id}:loop:{item}",
        input={"n": item},
        request_meta={"call_depth": 1, "call_root": str(run.id)},
        started_at=timezone.now(),
        lease_expires_at=timezone.now() + timedelta(seconds=lease_seconds),
        attempts=1,
    )


def run_to_its_end(run) -> int:
    passes = 0
    while background.execute_queued(str(run.id)) == "queued":
        passes += 1
        assert passes < 50
    run.refresh_from_db()
    return passes


def test_a_child_whose_lease_runs_out_is_run_again_in_its_row(alice):
    body, run = loop_over(alice, 3)
    stranded = left_running(body, run, 1, 0.5)

    run_to_its_end(run)

    assert run.status == "succeeded", run.error
    assert run.results["loop"]["results"] == [
        {"double": 0},
        {"double": 2},
        {"double": 4},
    ]
    assert FlowRun.objects.filter(flow=body).count() == 3
    stranded.refresh_from_db()
    assert (stranded.status, stranded.attempts) == ("succeeded", 2)


def test_a_background_parent_continues_later_when_the_lease_outlasts_its_deadline(
    alice, settings
):
    settings.RUN_TIMEOUT_SECONDS = 1
    body, run = loop_over(alice, 2)
    stranded = left_running(body, run, 0, 2.5)

    passes = run_to_its_end(run)

    assert run.status == "succeeded", run.error
    assert passes >= 2  # 1 s passes waited out the 2.5 s lease
    assert FlowRun.objects.filter(flow=body).count() == 2
    stranded.refresh_from_db()
    assert (stranded.status, stranded.attempts) == ("succeeded", 2)


def test_a_child_that_ends_while_the_parent_waits_is_taken_as_it_is(alice):
    body, run = loop_over(alice, 2)
    slow = left_running(body, run, 0, 5)
    real_sleep = calls.time.sleep

    def child_ends(seconds):
        FlowRun.objects.filter(pk=slow.pk).update(
            status="succeeded",
            finished_at=timezone.now(),
            lease_expires_at=None,
            response={"status": 200, "body": "from the slow worker"},
        )
        real_sleep(seconds)

    with mock.patch.object(calls.time, "sleep", side_effect=child_ends):
        run_to_its_end(run)

    assert run.status == "succeeded", run.error
    assert run.results["loop"]["results"] == ["from the slow worker", {"double": 2}]
    slow.refresh_from_db()
    assert slow.attempts == 1  # never run a second time
    assert FlowRun.objects.filter(flow=body).count() == 2


def test_a_synchronous_parent_out_of_time_still_fails_child_running(alice, settings):
    from flows.engine.runner import Execution

    settings.RUN_TIMEOUT_SECONDS = 1
    body, run = loop_over(alice, 1)
    FlowRun.objects.filter(pk=run.pk).update(background=False, status="running")
    run.refresh_from_db()
    left_running(body, run, 0, 30)

    Execution(run.flow, run).execute()

    assert run.status == "failed"
    assert run.error["code"] == "child_running"
    assert FlowRun.objects.filter(flow=body).count() == 1
