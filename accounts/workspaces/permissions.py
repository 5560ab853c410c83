"""Who may do what through the API: `WorkspaceRole`, the DRF permission that
checks a member's role on an object, and `InWorkspace`, the ViewSet mixin of
the routes nested under one workspace (`/api/workspaces/:id/...`).

A view names the right each action needs in `rights` (accounts/
rights.py: a dict keyed by action name for a ViewSet, by lower-case method
otherwise); TokenScopes checks it against a token's scopes, this class against
the member's role. Its queryset already holds only the workspaces
the user is a member of (anything else is 404); this class answers 403 when
the member's role lacks the right, for the object the view fetched.
"""

from __future__ import annotations

from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import get_object_or_404
from rest_framework.permissions import BasePermission

from accounts import rights
from accounts.workspaces.access import role_of
from accounts.workspaces.models import Workspace
from accounts.workspaces.roles import ROLE_NAMES, grants


def workspace_id_of(obj):
    """The workspace an object belongs to: itself, its own, or its flow's (a run)."""
    if isinstance(obj, Workspace):
        return obj.pk
    workspace_id = getattr(obj, "workspace_id", None)
    return workspace_id if workspace_id is not None else obj.flow.workspace_id


def require(user, workspace_id, right: str) -> str:
    """`user`'s role in the workspace; 403 `permission_denied` naming the role
    when it lacks `right`. Call only for a workspace the user can see."""
    return require_role(role_of(user, workspace_id), right)


def require_role(role: str | None, right: str) -> str | None:
    """`require` for a role the caller already read in this request (e.g. the
    `caller_role` annotation of `accounts.workspaces.access.role_subquery`)."""
    if not grants(role, right):
        raise PermissionDenied(
            f"As {ROLE_NAMES.get(role, 'a non-member')} of this workspace you "
            f"may not do this (it needs {right})."
        )
    return role


class WorkspaceRole(BasePermission):
    """Object level: the user holds the action's right in the object's workspace."""

    def has_object_permission(self, request, view, obj) -> bool:
        right = rights.required(view, request)
        if right != rights.PUBLIC:
            require(request.user, workspace_id_of(obj), right)
        return True


def allows(request, workspace_id, right: str) -> bool:
    """Whether the request may use `right` in the workspace: the user's role
    grants it and, for a request with an API token, so do its scopes."""
    granted = getattr(request.auth, "granted", None)
    token_allows = granted is None or right in granted
    return token_allows and grants(role_of(request.user, workspace_id), right)


class InWorkspace:
    """A ViewSet of the rows of the workspace in its URL (`workspace_id`):
    members, variables, workspace tokens, the audit log. Not a member: 404,
    as for a missing workspace; a member whose role lacks `workspace_right()`
    (by default the action's entry in `rights`): 403. The class's `queryset`
    (`Model.objects.none()`, for the schema) names the model of the rows."""

    def workspace(self) -> Workspace:
        """The workspace in the URL, checked (two queries)."""
        mine = Workspace.objects.for_user(self.request.user)
        workspace = get_object_or_404(mine, pk=self.kwargs["workspace_id"])
        right = self.workspace_right()
        if right is not None:
            require(self.request.user, workspace.pk, right)
        return workspace

    def workspace_right(self) -> str | None:
        """The right the caller's role needs in the workspace for this
        action; None where each action checks for itself."""
        return self.rights[self.action]

    def get_queryset(self):
        return self.queryset.model.objects.filter(workspace=self.workspace())
