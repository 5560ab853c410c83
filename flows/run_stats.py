"""Run statistics for the Runs page's chart: `GET /api/runs/stats?range=24h|7d|30d`,
read as `FlowRun.objects.for_user(user).stats(range_key)`.

Counts per time bucket and status, and the p50 and p95 run duration per bucket
and over the whole range, all aggregated in the database in three queries
whatever the number of runs. Percentiles are nearest-rank (the value at rank
ceil(p * n) of the n sorted durations, so always a duration that happened),
computed with window functions, which PostgreSQL and SQLite both have.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Case, Count, F, IntegerField, Value, When, Window
from django.db.models.functions import Ceil, RowNumber, Trunc
from django.utils import timezone

PERCENTILES = {"p50": 0.5, "p95": 0.95}


@dataclass(frozen=True)
class Range:
    bucket: str  # "hour" or "day", for Trunc
    count: int  # buckets in the range, the current one last

    @property
    def step(self) -> timedelta:
        return timedelta(hours=1) if self.bucket == "hour" else timedelta(days=1)


RANGES = {
    "24h": Range("hour", 24),
    "7d": Range("hour", 24 * 7),
    "30d": Range("day", 30),
}


def range_start(span: Range, now: datetime) -> datetime:
    current = now.replace(minute=0, second=0, microsecond=0)
    if span.bucket == "day":
        current = current.replace(hour=0)
    return current - span.step * (span.count - 1)


def _percentiles(runs, partition: list) -> dict:
    """{bucket or None: {"p50": ms, "p95": ms}}: one query (window functions)."""
    timed = runs.filter(duration_ms__isnull=False)
    ordering = [F("duration_ms").asc(), F("id").asc()]
    marks = timed.annotate(
        rank=Window(RowNumber(), partition_by=partition, order_by=ordering),
        total=Window(Count("id"), partition_by=partition),
    ).annotate(
        mark=Case(
            *(
                When(rank=Ceil(F("total") * share), then=Value(index))
                for index, share in enumerate(PERCENTILES.values(), start=1)
            ),
            default=Value(0),
            output_field=IntegerField(),
        )
    )
    names = list(PERCENTILES)
    found: dict = {}
    fields = ["mark", "duration_ms", "bucket"] if partition else ["mark", "duration_ms"]
    for mark, duration, *bucket in marks.filter(mark__gt=0).values_list(*fields):
        slot = found.setdefault(bucket[0] if bucket else None, dict.fromkeys(names))
        slot[names[mark - 1]] = duration
        # With one run, p50 and p95 are the same row: the first When matched.
        if mark == 1 and slot[names[1]] is None:
            slot[names[1]] = duration
    return found


def run_stats(runs, range_key: str, now: datetime | None = None) -> dict:
    """Buckets of `runs` (already the user's) over the range ending at `now`."""
    statuses = tuple(runs.model.Status.values)
    span = RANGES[range_key]
    now = now or timezone.now()
    start = range_start(span, now)
    recent = runs.filter(created_at__gte=start, created_at__lte=now).annotate(
        bucket=Trunc("created_at", span.bucket)
    )
    counts: dict = {}
    rows = recent.values("bucket", "status").annotate(n=Count("id")).order_by()
    for row in rows:
        counts.setdefault(row["bucket"], {})[row["status"]] = row["n"]
    per_bucket = _percentiles(recent, [F("bucket")])
    overall = _percentiles(recent, []).get(None, dict.fromkeys(PERCENTILES))
    buckets = []
    for index in range(span.count):
        bucket = start + span.step * index
        by_status = counts.get(bucket, {})
        buckets.append(
            {
                "start": bucket.isoformat(),
                "total": sum(by_status.values()),
                "counts": {status: by_status.get(status, 0) for status in statuses},
                **per_bucket.get(bucket, dict.fromkeys(PERCENTILES)),
            }
        )
    totals = {status: sum(b["counts"][status] for b in buckets) for status in statuses}
    return {
        "range": range_key,
        "bucket": span.bucket,
        "since": start.isoformat(),
        "until": now.isoformat(),
        "statuses": list(statuses),
        "total": sum(totals.values()),
        "counts": totals,
        **overall,
        "buckets": buckets,
    }
