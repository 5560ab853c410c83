"""`manage.py supervise`: the loop that ends or resumes stranded runs."""

from __future__ import annotations

import subprocess
import sys
from datetime import timedelta
from io import StringIO

import psycopg
import pytest
from django.core.management import call_command
from django.utils import timezone

from flows.models import FlowRun
from tests.factories import FlowRunFactory
from tests.processes import ROOT, manage_py, needs_postgres
from tests.waiting import wait_until

pytestmark = pytest.mark.processes


def stranded(**fields) -> FlowRun:
    """A synchronous run whose process died: still `running`, lease expired."""
    return FlowRunFactory(
        status=FlowRun.Status.RUNNING,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
        **fields,
    )


def status_of(run: FlowRun) -> str:
    return FlowRun.objects.values_list("status", flat=True).get(pk=run.pk)


@pytest.mark.django_db
def test_once_makes_one_pass_and_exits():
    run = stranded()
    out = StringIO()

    call_command("supervise", "--once", stdout=out)

    run.refresh_from_db()
    assert run.status == "interrupted"
    assert run.error["code"] == "interrupted"
    assert "1 interrupted, 0 resumed, 0 cancelled" in out.getvalue()


@pytest.mark.django_db
def test_a_pass_prunes_runs_past_the_retention_limit(settings):
    settings.RUN_RETENTION_DAYS = 30
    old = FlowRunFactory(status=FlowRun.Status.SUCCEEDED)
    FlowRun.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(days=31)
    )
    recent = FlowRunFactory(status=FlowRun.Status.SUCCEEDED)
    out = StringIO()

    call_command("supervise", "--once", stdout=out)

    assert list(FlowRun.objects.values_list("pk", flat=True)) == [recent.pk]
    assert "Pruned 1 runs past the retention limits." in out.getvalue()


@needs_postgres
def test_the_loop_keeps_finding_stranded_runs(processes):
    supervisor = processes.supervisor()
    first = stranded()
    assert wait_until(lambda: status_of(first) != "running", 10), supervisor.output()

    second = stranded()

    assert wait_until(lambda: status_of(second) != "running", 10), supervisor.output()
    assert supervisor.popen.poll() is None


def test_the_loop_outlives_a_database_restart(private_postgres, tmp_path):
    env = private_postgres.migrated_env()
    log = (tmp_path / "supervise.log").open("wb")
    supervisor = subprocess.Popen(
        [sys.executable, "manage.py", "supervise"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=log,
    )
    try:
        private_postgres.restart()
        make_stranded_run = (
            "from tests.factories import FlowRunFactory as F;"
            "from django.utils import timezone;"
            "r = F(status='running', lease_expires_at=timezone.now());"
            "print(r.pk)"
        )
        made = manage_py(env, "shell", "-c", make_stranded_run)
        run_id = made.strip().splitlines()[-1]

        def status():
            with psycopg.connect(private_postgres.url) as conn:
                row = conn.execute(
                    "SELECT status FROM flows_flowrun WHERE id = %s", [run_id]
                ).fetchone()
            return row[0]

        assert wait_until(lambda: status() == "interrupted", 10, interval=0.2), made
        assert supervisor.poll() is None
    finally:
        supervisor.kill()
        supervisor.wait()


@pytest.mark.django_db
def test_a_flow_that_would_crash_the_scheduler_is_logged_and_counted(caplog):
    from prometheus_client import REGISTRY

    from tests.factories import FlowFactory
    from tests.flows.graphs import node

    FlowFactory(
        nodes=[node("tick", "schedule", cron="0 0 30 2 *", timezone="UTC")],
        edges=[],
        schedule_checked_at=timezone.now() - timedelta(hours=1),
    )
    before = REGISTRY.get_sample_value("weir_schedule_errors_total") or 0
    out = StringIO()

    call_command("supervise", "--once", stdout=out)

    assert "Scheduled runs started: 0." in out.getvalue()
    assert REGISTRY.get_sample_value("weir_schedule_errors_total") == before + 1
    assert "could not be scheduled" in caplog.text
