"""`AuditEvent`: one thing someone did, kept for `AUDIT_RETENTION_DAYS`."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class AuditEventQuerySet(models.QuerySet):
    def older_than(self, cutoff):
        """What retention deletes (audit_at_idx)."""
        return self.filter(at__lt=cutoff)


class AuditEvent(models.Model):
    """Who did what, when, from where: a sign-in, a flow saved from v3 to v4, a
    credential's secret replaced, a run cancelled.

    Written explicitly by the service function that does the thing (never by
    model signals, which miss the engine's `.update()` calls), in its
    transaction: a change that rolls back leaves no event. Append-only;
    `actor_label` keeps the username after the user is deleted. Never holds a
    secret's value, only whether it changed.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    at = models.DateTimeField(default=timezone.now)
    workspace = models.ForeignKey(
        "accounts.Workspace",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # audit_workspace_at_idx leads with it
        help_text="The workspace of what was changed; none for sign-ins.",
    )
    action = models.CharField(max_length=64)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    actor_label = models.CharField(max_length=150)
    token_label = models.CharField(
        max_length=64, blank=True, help_text="The API token used, by its prefix."
    )
    target_type = models.CharField(max_length=32, blank=True)
    target_id = models.CharField(max_length=64, blank=True)
    target_label = models.CharField(max_length=200, blank=True)
    changes = models.JSONField(default=dict, blank=True)
    address = models.CharField(max_length=64, blank=True)
    user_agent = models.CharField(max_length=300, blank=True)
    request_id = models.CharField(max_length=64, blank=True)

    objects = AuditEventQuerySet.as_manager()

    class Meta:
        # Made by the flows app before the audit log moved here (issue 34).
        db_table = "flows_auditevent"
        ordering = ["-at", "-id"]
        indexes = [
            # The log newest first, its time filters, and retention's cut-off.
            models.Index(fields=["at"], name="audit_at_idx"),
            # A workspace's log newest first (GET /api/workspaces/:id/audit).
            models.Index(fields=["workspace", "at"], name="audit_workspace_at_idx"),
            # One thing's story: a flow's or a credential's events.
            models.Index(
                fields=["target_type", "target_id", "at"], name="audit_target_idx"
            ),
        ]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.actor_label} {self.action}"

    def as_log(self) -> dict:
        """The event as its `weir.audit` log line carries it."""
        return {
            "id": str(self.id),
            "at": self.at.isoformat(),
            "workspace_id": str(self.workspace_id) if self.workspace_id else None,
            "action": self.action,
            "actor": self.actor_label,
            "actor_id": self.actor_id,
            "token": self.token_label or None,
            "target_type": self.target_type,
            "target_id": self.target_id,
            "target": self.target_label,
            "changes": self.changes,
            "address": self.address,
            "request_id": self.request_id,
        }
