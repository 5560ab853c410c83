"""`{% run_overview as overview %}`: the admin index's runs at a glance.

Three queries, each served by an index (see `FlowRun.Meta.indexes`): runs of
the last hour by status, the queue depth, the oldest running run.
"""

from __future__ import annotations

from datetime import timedelta

from django import template
from django.utils import timezone

from flows.models import FlowRun

register = template.Library()


@register.simple_tag
def run_overview() -> dict:
    now = timezone.now()
    counts = FlowRun.objects.status_counts_since(now - timedelta(hours=1))
    oldest = FlowRun.objects.oldest_running()
    return {
        "last_hour": [(status, counts.get(status, 0)) for status in FlowRun.Status],
        "last_hour_total": sum(counts.values()),
        "queued": FlowRun.objects.queued().count(),
        "oldest_running": oldest,
    }
