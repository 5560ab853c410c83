"""`FlowVersion`: one numbered snapshot of a flow, written by `save_flow` only."""

from __future__ import annotations

import uuid

from django.conf import settings as django_settings
from django.db import models


class FlowVersion(models.Model):
    """What a flow was at one `version`: its name, description, input schema,
    graph and webhook settings, who saved it, from where and when.

    Append-only: a restore writes a new version (`restored_from` names the old
    one); a promotion's version names where it came from (`promoted_from`).
    Never holds the webhook secret or the builder's pins, which are not part
    of what a flow *is* and must not come back with a restore. A run's
    `flow_version` points at one of these by number.
    """

    class Source(models.TextChoices):
        CREATE = "create"
        EDIT = "edit"
        IMPORT = "import"
        RESTORE = "restore"
        ADMIN = "admin"
        MOVE = "move"
        GIT = "git", "git (a directory of flow files, docs/git.md)"
        PROMOTE = "promote", "promote (from another workspace, docs/git.md)"
        UPGRADE = "upgrade", "upgrade (the flow's state when history began)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    flow = models.ForeignKey(
        "flows.Flow", on_delete=models.CASCADE, related_name="versions", db_index=False
    )
    number = models.PositiveIntegerField()
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    input_schema = models.JSONField(default=dict, blank=True)
    nodes = models.JSONField(default=list, blank=True)
    edges = models.JSONField(default=list, blank=True)
    settings = models.JSONField(
        default=dict,
        blank=True,
        help_text="webhook_enabled, webhook_response_mode, error_flow_id and "
        "mcp_offered.",
    )
    source = models.CharField(max_length=16, choices=Source.choices)
    restored_from = models.PositiveIntegerField(null=True, blank=True)
    promoted_from = models.JSONField(
        null=True,
        blank=True,
        help_text="For a promotion: the workspace, flow and version it came from "
        "({workspace, workspace_name, flow, version}).",
    )
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_by_label = models.CharField(
        max_length=150, help_text="The saver's username, kept after they are deleted."
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["flow", "-number"]
        constraints = [
            # Its index serves a flow's history (newest first), one version by
            # number, and the cascade when a flow is deleted.
            models.UniqueConstraint(
                fields=["flow", "number"], name="flowversion_unique_number"
            ),
        ]

    def __str__(self):
        return f"{self.flow_id} v{self.number}"

    def snapshot(self) -> dict:
        """The versioned content, in the shape `flows.history.save.snapshot` makes."""
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "nodes": self.nodes,
            "edges": self.edges,
            "settings": self.settings,
        }
