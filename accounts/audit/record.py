"""`record`: write one audit event, and its line on the `weir.audit` logger.

Called by the service function that does the thing, inside its transaction,
so the event and the change commit or roll back together. The log line is
written only once that transaction commits: a log shipper never sees an event
that the database does not have.
"""

from __future__ import annotations

import logging

from django.db import transaction

from accounts.audit.actor import Actor
from accounts.audit.models import AuditEvent

logger = logging.getLogger("weir.audit")


def workspace_of(target):
    """The workspace id of an audited thing: a workspace itself; a flow,
    credential, agent, member or token (their `workspace_id`); a run or a
    version (its flow's). None for anything else (a user's sign-in)."""
    if target is None:
        return None
    if target._meta.label == "accounts.Workspace":
        return target.pk
    workspace_id = getattr(target, "workspace_id", None)
    if workspace_id is None and getattr(target, "flow_id", None) is not None:
        workspace_id = target.flow.workspace_id  # a run: its flow is loaded
    return workspace_id


def record(
    action: str,
    actor: Actor,
    target=None,
    *,
    changes: dict | None = None,
    target_type: str = "",
    target_label: str = "",
    workspace_id=None,
) -> AuditEvent:
    """Store the event `action` (`flow.updated`) by `actor` on `target` (a
    model instance, or a bare `target_type` and `target_label`); one INSERT.
    The event's workspace is `workspace_id`, else the target's."""
    if target is not None:
        target_type = target_type or target._meta.model_name
        target_label = target_label or str(target)
    event = AuditEvent.objects.create(
        workspace_id=workspace_id or workspace_of(target),
        action=action,
        actor=actor.user,
        actor_label=actor.label[:150],
        token_label=str(getattr(actor.token, "prefix", "") or "")[:64],
        target_type=target_type,
        target_id=str(target.pk) if target is not None else "",
        target_label=target_label[:200],
        changes=changes or {},
        address=actor.address[:64],
        user_agent=actor.user_agent,
        request_id=actor.request_id[:64],
    )
    line = event.as_log()
    transaction.on_commit(
        lambda: logger.info(
            "%s by %s: %s %s",
            action,
            actor.label,
            target_type,
            target_label,
            extra={"event": line},
        )
    )
    return event
