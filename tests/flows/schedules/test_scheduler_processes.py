"""A scheduled run executed by real processes: the supervisor's scheduler
starts it and a worker runs it within 2 s of its tick."""

from __future__ import annotations

from datetime import datetime

import pytest

from flows.engine import background
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = [needs_postgres]


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_per_second_schedule_runs_on_a_worker_within_2_s_of_each_tick(
    processes, alice
):
    nodes = [
        node("tick", "schedule", cron="* * * * * *", timezone="UTC"),
        code("work", "return {at: input.scheduled_for};"),
    ]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("tick", "work")])
    env = {"SCHEDULE_ALLOW_SECONDS": "1"}
    processes.worker(env=env)
    # The bound is from a tick to its run's end on a running worker: the ticks
    # start once the worker has run one run (it loads more than the supervisor).
    warm_up = FlowFactory(created_by=alice)
    first = background.enqueue_run(warm_up, {}, FlowRun.Trigger.MANUAL)
    assert wait_until(
        lambda: FlowRun.objects.get(pk=first.pk).status == "succeeded", 90
    )
    processes.supervisor(env=env)

    def finished():
        return FlowRun.objects.filter(flow=flow, status="succeeded").count() >= 3

    assert wait_until(finished, 90), processes.started[-1].output()

    runs = list(FlowRun.objects.filter(flow=flow, status="succeeded"))
    ticks = [run.input["scheduled_for"] for run in runs]
    assert len(ticks) == len(set(ticks))  # one run per tick
    for run in runs:
        tick = datetime.fromisoformat(run.input["scheduled_for"].replace("Z", "+00:00"))
        assert run.trigger == "schedule"
        assert run.results["work"] == {"at": run.input["scheduled_for"]}
        assert (run.finished_at - tick).total_seconds() <= 2.0, (tick, run.finished_at)


@pytest.fixture(autouse=True)
def _seconds_allowed(settings):
    settings.SCHEDULE_ALLOW_SECONDS = True
