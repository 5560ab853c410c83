"""Retention and run files: a pruned run's files go, rows and bytes, and so
do files no run claimed within RUN_FILES_UNCLAIMED_SECONDS."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from flows import files
from flows.engine import retention
from flows.files.models import RunFile
from tests.flows.engine.test_retention import run_aged

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def limits(settings):
    settings.RUN_RETENTION_DAYS = 30
    settings.RUN_RETENTION_MAX_PER_FLOW = 10_000
    settings.RUN_FILES_UNCLAIMED_SECONDS = 3600
    return settings


def stored(flow, run=None, name="a.txt"):
    return files.store(
        workspace_id=flow.workspace_id,
        name=name,
        content_type="text/plain",
        data=name.encode(),
        run_id=run.pk if run else None,
    )


def path_of(folder, marker):
    return folder / RunFile.objects.get(pk=marker["$file"]["id"]).storage_key


def aged(marker, seconds):
    RunFile.objects.filter(pk=marker["$file"]["id"]).update(
        created_at=timezone.now() - timedelta(seconds=seconds)
    )


def test_a_pruned_runs_files_go_rows_and_bytes(alice_flow, limits, _run_files_folder):
    old, recent = run_aged(alice_flow, 31), run_aged(alice_flow, 29)
    gone = stored(alice_flow, old, "old.txt")
    kept = stored(alice_flow, recent, "recent.txt")
    gone_path, kept_path = (
        path_of(_run_files_folder, gone),
        path_of(_run_files_folder, kept),
    )

    retention.prune()

    assert list(RunFile.objects.values_list("name", flat=True)) == ["recent.txt"]
    assert not gone_path.exists()
    assert kept_path.read_bytes() == b"recent.txt"


def test_a_runs_files_go_when_it_passes_its_flows_cap(
    alice_flow, limits, _run_files_folder
):
    limits.RUN_RETENTION_MAX_PER_FLOW = 1
    older, newer = run_aged(alice_flow, 2), run_aged(alice_flow, 1)
    gone = stored(alice_flow, older, "older.txt")
    stored(alice_flow, newer, "newer.txt")
    gone_path = path_of(_run_files_folder, gone)

    retention.prune()

    assert list(RunFile.objects.values_list("name", flat=True)) == ["newer.txt"]
    assert not gone_path.exists()


def test_an_unclaimed_file_goes_after_an_hour(alice_flow, limits, _run_files_folder):
    stale, fresh = stored(alice_flow, name="stale"), stored(alice_flow, name="fresh")
    aged(stale, 3601)
    aged(fresh, 3500)
    stale_path = path_of(_run_files_folder, stale)

    report = retention.prune()

    assert report.unclaimed_files == 1
    assert list(RunFile.objects.values_list("name", flat=True)) == ["fresh"]
    assert not stale_path.exists()


def test_a_dry_run_counts_unclaimed_files_and_deletes_none(alice_flow, limits):
    aged(stored(alice_flow), 7200)

    report = retention.prune(dry_run=True)

    assert report.unclaimed_files == 1
    assert RunFile.objects.count() == 1


def test_a_claimed_file_is_never_unclaimed_however_old(alice_flow, limits):
    run = run_aged(alice_flow, 1)
    aged(stored(alice_flow, run), 86_400)

    assert retention.prune().unclaimed_files == 0
    assert RunFile.objects.count() == 1
