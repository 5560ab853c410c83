"""Audit retention: events older than `AUDIT_RETENTION_DAYS` go, in batches.

Run by the supervisor's prune pass next to run retention. Each batch is one
short DELETE of at most `BATCH_SIZE` rows picked by the `at` index, so no
statement holds locks for long.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from accounts.audit.models import AuditEvent

BATCH_SIZE = 1000


def prune_audit(now: datetime | None = None, batch_size: int = BATCH_SIZE) -> int:
    """Delete events past the retention; how many. Nothing when it is 0."""
    days = settings.AUDIT_RETENTION_DAYS
    if not days:
        return 0
    cutoff = (now or timezone.now()) - timedelta(days=days)
    deleted = 0
    while True:
        batch = list(
            AuditEvent.objects.older_than(cutoff)
            .order_by("at")
            .values_list("pk", flat=True)[:batch_size]
        )
        if not batch:
            return deleted
        deleted += AuditEvent.objects.filter(pk__in=batch).delete()[0]
