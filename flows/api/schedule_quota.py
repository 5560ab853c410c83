"""How many enabled schedules one user may have (SCHEDULED_FLOWS_PER_OWNER).

Each enabled schedule queues background runs on its own, for as long as it
exists: without a cap, one account with many per-minute schedules fills the
queue every other user waits in. A save that adds an enabled schedule past the
cap is refused; flows already holding one keep it, and can still be edited,
when the cap is lowered. Staff saving through the admin are not held to it.
"""

from __future__ import annotations

from django.conf import settings

from flows.models import Flow
from flows.nodes.schedule import enabled_schedule


def check_schedule_quota(nodes, owner_id, instance: Flow | None, errors) -> None:
    """Add a node error (GraphErrors.node) when this save would add one
    enabled schedule more than the owner may have."""
    schedule = enabled_schedule(nodes)
    if schedule is None:
        return
    if instance is not None and enabled_schedule(instance.nodes) is not None:
        return  # not a new schedule
    others = Flow.objects.filter(owner_id=owner_id).scheduled()
    if instance is not None:
        others = others.exclude(pk=instance.pk)
    enabled = sum(
        enabled_schedule(graph) is not None
        for graph in others.values_list("nodes", flat=True)
    )
    limit = settings.SCHEDULED_FLOWS_PER_OWNER
    if enabled >= limit:
        errors.node(
            schedule[0],
            "data.enabled",
            f"You already have {enabled} flow{'' if enabled == 1 else 's'} with an "
            "enabled schedule, the most "
            f"one account may have ({limit}). Disable or remove one of them, or "
            "save this schedule disabled.",
        )
