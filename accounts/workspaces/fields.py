"""`WorkspaceField`: the `workspace` a serializer's row is made in.

One check for every workspace-owned row the API creates (flows, credentials,
agents, knowledge bases, personal API tokens): a workspace the caller is not a
member of reads exactly like a missing one, 400 `No workspace of yours has
this id.` (docs/api.md, "Workspaces"); one where their role lacks the right
to create is 403 `permission_denied`.
"""

from __future__ import annotations

from rest_framework import serializers

from accounts.workspaces.models import Workspace
from accounts.workspaces.permissions import require

NOT_YOURS = "No workspace of yours has this id."


class WorkspaceField(serializers.PrimaryKeyRelatedField):
    """A workspace id, on create: one of the caller's where their role holds
    `right` (None: any role). Optional: the serializer or view picks the
    default (an API token's workspace, else the personal one). On update it
    is ignored, once it names a workspace at all: a row never moves here."""

    default_error_messages = {
        **serializers.PrimaryKeyRelatedField.default_error_messages,
        "does_not_exist": NOT_YOURS,
    }

    def __init__(self, right: str | None = None, **kwargs):
        self.right = right
        kwargs.setdefault("queryset", Workspace.objects.all())
        kwargs.setdefault("required", False)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        workspace = super().to_internal_value(data)
        instance = getattr(self.parent, "instance", None)
        if instance is not None:
            return instance.workspace
        user = self.context["request"].user
        mine = Workspace.objects.for_user(user)
        if not mine.filter(pk=workspace.pk).exists():
            self.fail("does_not_exist", pk_value=data)
        if self.right is not None:
            require(user, workspace.pk, self.right)
        return workspace
