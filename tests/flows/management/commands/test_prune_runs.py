"""`manage.py prune_runs`: says what it deleted, or with --dry-run what it would."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO

from django.core.management import call_command
from django.utils import timezone

from flows import files
from flows.files.models import RunFile
from flows.models import FlowRun
from tests.flows.engine.test_retention import run_aged


def prune(*args) -> str:
    out = StringIO()
    call_command("prune_runs", *args, stdout=out)
    return out.getvalue()


def test_it_deletes_old_runs_and_says_so(alice_flow, settings):
    settings.RUN_RETENTION_DAYS = 30
    run_aged(alice_flow, 31)
    kept = run_aged(alice_flow, 1)

    output = prune()

    assert output == (
        "Deleted 1 runs and 2 steps: 1 older than 30 days, "
        "0 beyond the newest 10000 of their flow, "
        "0 of deleted flows.\n"
    )
    assert list(FlowRun.objects.values_list("pk", flat=True)) == [kept.pk]


def test_a_dry_run_says_what_would_go_and_keeps_it(alice_flow, settings):
    settings.RUN_RETENTION_DAYS = 30
    old = run_aged(alice_flow, 31)

    output = prune("--dry-run")

    assert output.startswith("Would delete 1 runs and 2 steps")
    assert FlowRun.objects.filter(pk=old.pk).exists()


def test_it_says_how_many_unclaimed_files_went(alice_flow, settings):
    settings.RUN_FILES_UNCLAIMED_SECONDS = 3600
    files.store(
        workspace_id=alice_flow.workspace_id, name="a", content_type="", data=b"a"
    )
    RunFile.objects.update(created_at=timezone.now() - timedelta(hours=2))

    output = prune()

    assert output.endswith("Deleted 1 files no run claimed within 3600 s.\n")
    assert not RunFile.objects.exists()
