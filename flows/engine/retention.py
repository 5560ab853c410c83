"""Run retention: delete old runs and their steps in small batches.

Two limits (settings, 0 turns one off): runs older than `RUN_RETENTION_DAYS`,
and a flow's runs beyond its newest `RUN_RETENTION_MAX_PER_FLOW`. Runs still
`queued` or `running` and pinned runs are kept whatever their age
(`FlowRun.objects.prunable`). Whatever the limits, the same pass deletes the
runs stored as their flow was deleted (flows/engine/orphans.py) that neither
the flow's delete nor the supervisor took: finished or waiting ones, which
nobody can see or resume.

Each batch is one short transaction: lock up to `batch_size` prunable runs by
id, delete their steps, delete them. No statement touches more than one
batch's rows, so no lock is held long and webhooks inserting new runs never
wait on the prune (new rows are never among the locked ones). Between two
batches a run may become pinned or be resumed: the lock re-checks
`prunable()`, so such a run is skipped, never half-deleted.

A run's files go with it: their rows in the same transaction, their bytes
once it commits (flows/files/removal.py). The same pass deletes the files
no run claimed within RUN_FILES_UNCLAIMED_SECONDS (an upload whose run was
never written, a node's file whose process died).

Short transactions keep webhooks from waiting on locks, but the deletes still
take CPU and disk from them. So the prune paces itself: after each batch it
sleeps long enough that it works at most `PRUNE_WORK_SHARE` of the time (0.25:
it sleeps three times as long as the batch took). Measured on 2 cores with
webhooks saturating them (bench/README.md, "Pruning while webhooks run"): at
full speed the webhooks' p99 rose by 39%, paced at 0.25 by far less.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from flows.engine.orphans import without_flow
from flows.files.models import RunFile
from flows.files.removal import delete_files_of_runs, delete_unclaimed
from flows.models import FlowRun, RunStep

BATCH_SIZE = 500


@dataclass
class PruneReport:
    runs_by_age: int = 0
    runs_by_count: int = 0
    runs_of_deleted_flows: int = 0
    steps: int = 0
    unclaimed_files: int = 0

    @property
    def runs(self) -> int:
        return self.runs_by_age + self.runs_by_count + self.runs_of_deleted_flows


def cutoff(now: datetime | None = None) -> datetime | None:
    """Runs created before this are too old; None when the age limit is off."""
    if not settings.RUN_RETENTION_DAYS:
        return None
    return (now or timezone.now()) - timedelta(days=settings.RUN_RETENTION_DAYS)


def flows_over_the_cap() -> list:
    """Ids of flows with more runs than the per-flow cap (one grouped query)."""
    cap = settings.RUN_RETENTION_MAX_PER_FLOW
    if not cap:
        return []
    return list(
        FlowRun.objects.order_by()
        .values("flow_id")
        .annotate(count=Count("pk"))
        .filter(count__gt=cap)
        .values_list("flow_id", flat=True)
    )


def beyond_the_cap(flow_id):
    """Runs of `flow_id` older than its newest RUN_RETENTION_MAX_PER_FLOW."""
    newest = (
        FlowRun.objects.filter(flow_id=flow_id)
        .order_by("-created_at", "-pk")
        .values_list("created_at", flat=True)
    )
    # The cap-th newest run's time (run_flow_created_idx); older ones go.
    last_kept = newest[settings.RUN_RETENTION_MAX_PER_FLOW - 1]
    return FlowRun.objects.filter(flow_id=flow_id, created_at__lt=last_kept)


def rest_after(batch_seconds: float, work_share: float, pause: float) -> float:
    """Seconds to sleep after a batch that took `batch_seconds`, so the prune
    works at most `work_share` (0 < share <= 1) of its time, and at least
    `pause`."""
    return max(pause, batch_seconds * (1 - work_share) / work_share)


def delete_in_batches(
    runs,
    *,
    batch_size: int = BATCH_SIZE,
    pause: float = 0.0,
    work_share: float = 1.0,
    prunable_only: bool = True,
) -> tuple[int, int]:
    """Delete the prunable ones of `runs` (all of them if not `prunable_only`)
    and their steps; (runs, steps) deleted.

    Oldest first, each batch starting where the last one ended, so no batch
    walks the index entries of the rows already deleted (PostgreSQL keeps them
    until VACUUM). Paced by `work_share` and `pause` (see `rest_after`).
    """
    deleted_runs = deleted_steps = 0
    candidates = (runs.prunable() if prunable_only else runs).order_by("created_at")
    while True:
        started = time.monotonic()
        with transaction.atomic():
            batch = list(
                candidates.select_for_update(skip_locked=True).values_list(
                    "pk", "created_at"
                )[:batch_size]
            )
            if not batch:
                return deleted_runs, deleted_steps
            ids = [pk for pk, _ in batch]
            deleted_steps += RunStep.objects.filter(run_id__in=ids).delete()[0]
            delete_files_of_runs(ids)  # rows now, bytes once this commits
            # _raw_delete: one DELETE by id. `delete()` would first load every
            # column of each run (inputs, results) to collect cascades the
            # line above has already done.
            deleted_runs += FlowRun.objects.filter(pk__in=ids)._raw_delete(
                FlowRun.objects.db
            )
        candidates = candidates.filter(created_at__gte=batch[-1][1])
        rest = rest_after(time.monotonic() - started, work_share, pause)
        if rest:
            time.sleep(rest)  # leave the CPU and disk to webhooks meanwhile


def prune(
    *,
    dry_run: bool = False,
    batch_size: int = BATCH_SIZE,
    pause: float = 0.0,
    work_share: float | None = None,
    now: datetime | None = None,
    progress: Callable[[str], None] = lambda line: None,
) -> PruneReport:
    """Apply both limits; with `dry_run`, only count what would go.

    `work_share` defaults to the PRUNE_WORK_SHARE setting."""
    report = PruneReport()
    pace = {
        "batch_size": batch_size,
        "pause": pause,
        "work_share": settings.PRUNE_WORK_SHARE if work_share is None else work_share,
    }
    too_old = cutoff(now)
    if too_old is not None:
        old = FlowRun.objects.filter(created_at__lt=too_old)
        if dry_run:
            report.runs_by_age = old.prunable().count()
            report.steps += RunStep.objects.filter(run__in=old.prunable()).count()
        else:
            runs, steps = delete_in_batches(old, **pace)
            report.runs_by_age, report.steps = runs, report.steps + steps
        progress(f"{report.runs_by_age} runs older than {too_old:%Y-%m-%d %H:%M}")
    for flow_id in flows_over_the_cap():
        extra = beyond_the_cap(flow_id)
        if too_old is not None:  # counted above already
            extra = extra.filter(created_at__gte=too_old)
        if dry_run:
            runs = extra.prunable().count()
            report.steps += RunStep.objects.filter(run__in=extra.prunable()).count()
        else:
            runs, steps = delete_in_batches(extra, **pace)
            report.steps += steps
        report.runs_by_count += runs
        progress(f"{runs} runs of flow {flow_id} beyond its newest runs")
    # Queued and running ones are the supervisor's (`orphans.delete_expired`).
    active = (FlowRun.Status.QUEUED, FlowRun.Status.RUNNING)
    orphans = without_flow(FlowRun.objects.exclude(status__in=active))
    if dry_run:
        report.runs_of_deleted_flows = orphans.count()
        report.steps += RunStep.objects.filter(run__in=orphans).count()
    else:
        runs, steps = delete_in_batches(orphans, prunable_only=False, **pace)
        report.runs_of_deleted_flows, report.steps = runs, report.steps + steps
    progress(f"{report.runs_of_deleted_flows} runs of deleted flows")
    if dry_run:
        report.unclaimed_files = RunFile.objects.unclaimed_before(
            (now or timezone.now())
            - timedelta(seconds=settings.RUN_FILES_UNCLAIMED_SECONDS)
        ).count()
    else:
        report.unclaimed_files = delete_unclaimed(now)
    progress(f"{report.unclaimed_files} files no run claimed")
    return report


def policy_text() -> str:
    """How long history is kept, in a sentence for the flow page."""
    days, cap = settings.RUN_RETENTION_DAYS, settings.RUN_RETENTION_MAX_PER_FLOW
    limits = []
    if days:
        limits.append(f"for {days} day{'s' if days != 1 else ''}")
    if cap:
        limits.append(f"up to the newest {cap:,} runs")
    if not limits:
        return "Run history is kept until you delete it."
    return f"Run history is kept {' and '.join(limits)}; pinned runs are kept."
