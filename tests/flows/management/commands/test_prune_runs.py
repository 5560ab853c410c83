"""`manage.py prune_runs`: says what it deleted, or with --dry-run what it would."""

from __future__ import annotations

from io import StringIO

from django.core.management import call_command

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
        "0 beyond the newest 10000 of their flow.\n"
    )
    assert list(FlowRun.objects.values_list("pk", flat=True)) == [kept.pk]


def test_a_dry_run_says_what_would_go_and_keeps_it(alice_flow, settings):
    settings.RUN_RETENTION_DAYS = 30
    old = run_aged(alice_flow, 31)

    output = prune("--dry-run")

    assert output.startswith("Would delete 1 runs and 2 steps")
    assert FlowRun.objects.filter(pk=old.pk).exists()
