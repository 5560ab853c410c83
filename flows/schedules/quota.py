"""How many enabled schedules one workspace may have (SCHEDULED_FLOWS_PER_OWNER,
which counted per user before workspaces and keeps its name).

Each enabled schedule queues background runs on its own, for as long as it
exists: without a cap, one workspace with many per-minute schedules fills the
queue every other user waits in. A save that adds an enabled schedule past the
cap is refused; flows already holding one keep it, and can still be edited,
when the cap is lowered. Staff saving through the admin are not held to it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction

from accounts.models import Workspace
from flows.models import Flow
from flows.nodes.schedule import enabled_schedule


def check_schedule_quota(nodes, workspace_id, instance: Flow | None, errors) -> None:
    """Add a node error (GraphErrors.node) when this save would add one
    enabled schedule more than the workspace may have."""
    schedule = enabled_schedule(nodes)
    if schedule is None:
        return
    if instance is not None and enabled_schedule(instance.nodes) is not None:
        return  # not a new schedule
    # Saves that add a schedule in one workspace take turns (its row is
    # locked until the save commits): counted then inserted side by side, 8
    # concurrent saves reached 5 of a cap of 2.
    if transaction.get_connection().in_atomic_block:
        Workspace.objects.select_for_update().filter(pk=workspace_id).exists()
    others = Flow.objects.filter(workspace_id=workspace_id).scheduled()
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
