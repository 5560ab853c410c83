"""`WorkspaceRole`: the DRF permission that checks a member's role on an object.

A view names the right each action needs in `rights` (a dict keyed by action
name for a ViewSet, by lower-case method otherwise; the names are
flows/workspaces/roles.py's). Its queryset already holds only the workspaces
the user is a member of (anything else is 404); this class answers 403 when
the member's role lacks the right, for the object the view fetched.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission

from flows.workspaces.access import role_of
from flows.workspaces.models import Workspace
from flows.workspaces.roles import grants

ROLE_NAMES = {
    "viewer": "a viewer",
    "runner": "a runner",
    "editor": "an editor",
    "admin": "an admin",
    "owner": "an owner",
}


def required_right(view, request) -> str:
    """The right this request needs by the view's `rights`; a view or action
    that declares none is a programming error, never an open door."""
    rights = getattr(view, "rights", None) or {}
    key = getattr(view, "action", None) or request.method.lower()
    if key not in rights:
        raise ImproperlyConfigured(f"{type(view).__name__} declares no right for {key}")
    return rights[key]


def workspace_id_of(obj):
    """The workspace an object belongs to: itself, its own, or its flow's (a run)."""
    if isinstance(obj, Workspace):
        return obj.pk
    workspace_id = getattr(obj, "workspace_id", None)
    return workspace_id if workspace_id is not None else obj.flow.workspace_id


def require(user, workspace_id, right: str) -> str:
    """`user`'s role in the workspace; 403 `permission_denied` naming the role
    when it lacks `right`. Call only for a workspace the user can see."""
    role = role_of(user, workspace_id)
    if not grants(role, right):
        raise PermissionDenied(
            f"As {ROLE_NAMES.get(role, 'a non-member')} of this workspace you "
            f"may not do this (it needs {right})."
        )
    return role


class WorkspaceRole(BasePermission):
    """Object level: the user holds the action's right in the object's workspace."""

    def has_object_permission(self, request, view, obj) -> bool:
        require(request.user, workspace_id_of(obj), required_right(view, request))
        return True
