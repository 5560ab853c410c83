"""Retention: old runs and runs past a flow's cap go, in batches; some always stay."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from flows.engine import retention
from flows.models import FlowRun, RunStep
from tests.factories import FlowRunFactory


def run_aged(flow, days: float, *, steps: int = 2, **fields) -> FlowRun:
    """A run created `days` ago with `steps` step rows."""
    run = FlowRunFactory(flow=flow, **fields)
    FlowRun.objects.filter(pk=run.pk).update(
        created_at=timezone.now() - timedelta(days=days)
    )
    RunStep.objects.bulk_create(
        RunStep(
            run=run, position=i, node_id=f"n{i}", node_type="code", status="succeeded"
        )
        for i in range(steps)
    )
    return run


@pytest.fixture
def limits(settings):
    settings.RUN_RETENTION_DAYS = 30
    settings.RUN_RETENTION_MAX_PER_FLOW = 10_000
    return settings


def surviving(*runs) -> set:
    return set(
        FlowRun.objects.filter(pk__in=[r.pk for r in runs]).values_list("pk", flat=True)
    )


def test_runs_older_than_the_retention_go_with_their_steps(alice_flow, limits):
    old, recent = run_aged(alice_flow, 31), run_aged(alice_flow, 29)

    report = retention.prune()

    assert (report.runs_by_age, report.runs_by_count, report.steps) == (1, 0, 2)
    assert surviving(old, recent) == {recent.pk}
    assert not RunStep.objects.filter(run_id=old.pk).exists()
    assert RunStep.objects.filter(run_id=recent.pk).count() == 2


def test_queued_running_and_pinned_runs_are_kept_however_old(alice_flow, limits):
    kept = [
        run_aged(alice_flow, 400, status=FlowRun.Status.QUEUED),
        run_aged(alice_flow, 400, status=FlowRun.Status.RUNNING),
        run_aged(alice_flow, 400, pinned=True),
    ]
    failed = run_aged(alice_flow, 400, status=FlowRun.Status.FAILED)

    retention.prune()

    assert surviving(*kept, failed) == {run.pk for run in kept}
    assert RunStep.objects.filter(run__in=kept).count() == 6


def test_a_waiting_run_older_than_the_retention_is_not_pruned(alice_flow, limits):
    waiting = run_aged(alice_flow, 31, status=FlowRun.Status.WAITING)
    done = run_aged(alice_flow, 31, status=FlowRun.Status.SUCCEEDED)

    report = retention.prune()

    assert report.runs_by_age == 1
    assert surviving(waiting, done) == {waiting.pk}
    assert RunStep.objects.filter(run=waiting).count() == 2  # resumes from these


def test_a_waiting_run_past_the_cap_is_kept(alice_flow, limits):
    limits.RUN_RETENTION_MAX_PER_FLOW = 1
    waiting = run_aged(alice_flow, 3, status=FlowRun.Status.WAITING)
    newer = [run_aged(alice_flow, days) for days in (2, 1)]

    retention.prune()

    assert surviving(waiting, *newer) == {waiting.pk, newer[1].pk}


def test_a_flow_keeps_only_its_newest_runs_past_the_cap(alice_flow, bob_flow, limits):
    limits.RUN_RETENTION_MAX_PER_FLOW = 3
    alice_runs = [run_aged(alice_flow, days) for days in (5, 4, 3, 2, 1)]
    pinned = run_aged(alice_flow, 6, pinned=True)
    bob_runs = [run_aged(bob_flow, days) for days in (5, 4, 3)]

    report = retention.prune()

    assert report.runs_by_count == 2
    assert surviving(*alice_runs, pinned) == {r.pk for r in alice_runs[2:]} | {
        pinned.pk
    }
    assert surviving(*bob_runs) == {r.pk for r in bob_runs}


def test_zero_turns_a_limit_off(alice_flow, limits):
    limits.RUN_RETENTION_DAYS = 0
    limits.RUN_RETENTION_MAX_PER_FLOW = 0
    ancient = run_aged(alice_flow, 3000)

    report = retention.prune()

    assert report.runs == 0
    assert surviving(ancient) == {ancient.pk}


def test_a_dry_run_counts_and_deletes_nothing(alice_flow, limits):
    limits.RUN_RETENTION_MAX_PER_FLOW = 1
    runs = [run_aged(alice_flow, 40), run_aged(alice_flow, 2), run_aged(alice_flow, 1)]

    report = retention.prune(dry_run=True)

    assert (report.runs_by_age, report.runs_by_count, report.steps) == (1, 1, 4)
    assert len(surviving(*runs)) == 3


def test_deletes_go_in_batches_of_the_given_size(alice_flow, limits):
    runs = [run_aged(alice_flow, 40 + i) for i in range(5)]

    with CaptureQueriesContext(connection) as queries:
        report = retention.prune(batch_size=2)

    deletes = [q["sql"] for q in queries if q["sql"].startswith("DELETE")]
    assert report.runs_by_age == 5
    assert surviving(*runs) == set()
    # Three batches (2, 2, 1), each deleting steps and then runs.
    assert len(deletes) == 6


class FakeClock:
    """Each batch seems to take `batch` seconds; sleeps are recorded, not slept."""

    def __init__(self, batch: float):
        self.now, self.batch, self.slept = 0.0, batch, []

    def monotonic(self) -> float:
        self.now += self.batch  # read once at a batch's start, once at its end
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))


def test_the_prune_rests_so_it_works_only_its_share_of_the_time(
    alice_flow, limits, monkeypatch
):
    runs = [run_aged(alice_flow, 40 + i) for i in range(5)]
    clock = FakeClock(batch=0.2)
    monkeypatch.setattr(retention, "time", clock)

    retention.prune(batch_size=2, work_share=0.25)

    # Three batches (2, 2, 1); after each, three times as long as it took.
    assert clock.slept == [0.6, 0.6, 0.6]
    assert surviving(*runs) == set()


def test_the_work_share_defaults_to_the_setting_and_a_pause_is_a_floor(
    alice_flow, limits, monkeypatch
):
    limits.PRUNE_WORK_SHARE = 1.0  # full speed: no rest but the pause
    run_aged(alice_flow, 40)
    clock = FakeClock(batch=0.2)
    monkeypatch.setattr(retention, "time", clock)

    retention.prune(batch_size=2, pause=0.05)

    assert clock.slept == [0.05]


def test_prune_runs_refuses_a_work_share_outside_0_to_1(alice_flow, limits):
    from django.core.management import CommandError, call_command

    run = run_aged(alice_flow, 40)
    with pytest.raises(CommandError, match="--work-share must be above 0"):
        call_command("prune_runs", "--work-share", "0")
    assert surviving(run) == {run.pk}
