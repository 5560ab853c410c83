"""`sweep_stale_runs` ends runs a crash left behind, and nothing else."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import timezone

from flows.models import FlowRun
from tests.factories import FlowRunFactory

pytestmark = pytest.mark.django_db


def aged(status: str, seconds: float) -> FlowRun:
    run = FlowRunFactory(status=status)
    FlowRun.objects.filter(pk=run.pk).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )
    return run


def sweep() -> str:
    out = StringIO()
    call_command("sweep_stale_runs", stdout=out)
    return out.getvalue()


def test_old_running_and_queued_runs_are_marked_interrupted(settings):
    settings.RUN_TIMEOUT_SECONDS = 30
    running = aged("running", 3600)
    queued = aged("queued", 3600)

    assert "Marked 2 stale run(s)" in sweep()

    for run in (running, queued):
        run.refresh_from_db()
        assert run.status == "failed"
        assert run.error["code"] == "interrupted"
        assert run.finished_at is not None
        assert run.as_result()["success"] is False


def test_runs_that_may_still_be_going_are_left_alone(settings):
    settings.RUN_TIMEOUT_SECONDS = 30
    recent = aged("running", 5)

    sweep()

    recent.refresh_from_db()
    assert recent.status == "running"
    assert recent.error is None


def test_finished_runs_are_never_touched():
    done = aged("succeeded", 3600)
    failed = aged("failed", 3600)

    assert "Marked 0 stale run(s)" in sweep()

    done.refresh_from_db()
    failed.refresh_from_db()
    assert done.status == "succeeded"
    assert failed.error is None
