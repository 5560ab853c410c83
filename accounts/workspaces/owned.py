"""The workspace-owned pattern: a row that belongs to a workspace, and who made it.

`WorkspaceOwned` is the abstract model of flows, credentials, agents and
knowledge bases: a UUID `id`, `created_by` (kept for the record; access comes
from the workspace's members) and `workspace`, which `save()` fills in with
the creator's personal workspace when nothing named one. A model whose
columns differ (an agent's workspace may be empty, a knowledge base goes with
its workspace) redeclares that field; the table stays as it was.

`WorkspaceOwnedQuerySet.for_user` is the one way views, the API and the
engine reach such rows: those of the workspaces `user` is a member of (with
`right`, those where their role holds it); any other row does not exist.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models

from accounts.workspaces.access import member_workspace_ids, workspace_ids_where
from accounts.workspaces.personal import personal_workspace


class WorkspaceOwnedQuerySet(models.QuerySet):
    # The path from a row to its workspace (a run's is its flow's).
    workspace_path = "workspace"

    def for_user(self, user, right: str | None = None):
        """The rows of the workspaces `user` is a member of; with `right`
        (accounts/rights.py), of those where their role holds it. Nothing for
        an anonymous user. Costs no query of its own: a subquery."""
        if user is None or not user.is_authenticated:
            return self.none()
        return self.filter(self.reach(user, right))

    def reach(self, user, right: str | None = None) -> models.Q:
        """`for_user`'s condition, to combine with others (an agent shared
        with everyone) or to annotate with. For a signed-in `user` only."""
        if right is None:
            workspaces = member_workspace_ids(user)
        else:
            workspaces = workspace_ids_where(user, right)
        return models.Q(**{f"{self.workspace_path}__in": workspaces})


class WorkspaceOwned(models.Model):
    """A row of one workspace, made by someone who may since have left.

    Its members reach it by their role (`objects.for_user`); `created_by`
    only says who made it, and is emptied when their account goes. Saved
    without a workspace, it lands in its creator's personal one.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="%(class)ss",
        help_text="Who made it; access comes from the workspace's members.",
    )
    # PROTECT: a workspace is deleted only once it holds nothing.
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.PROTECT,
        related_name="%(class)ss",
        help_text="Whose it is: its members reach it, by their role.",
    )

    objects = WorkspaceOwnedQuerySet.as_manager()

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if self.workspace_id is None and self.created_by_id is not None:
            self.workspace = personal_workspace(self.created_by)
        super().save(*args, **kwargs)
