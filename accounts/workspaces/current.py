"""The workspace the pages show: picked in the header's switcher.

`?workspace=<id>` on any page picks one (kept in the session); without it,
the one picked last; without that, the user's personal workspace. Only a
workspace the user is a member of can be picked: any other id is ignored.
"""

from __future__ import annotations

import functools
import uuid
from functools import partial

from django.utils.functional import SimpleLazyObject

from accounts.workspaces.invitations import pending_count, pending_for
from accounts.workspaces.models import Membership
from accounts.workspaces.roles import (
    FLOWS_EDIT,
    MEMBERS_MANAGE,
    RUNS_START,
    grants,
)

SESSION_KEY = "workspace_id"


def memberships_of(request) -> list[Membership]:
    """The signed-in user's memberships, personal workspace first: one query
    per request (kept on it, for the view and the header alike). Each row
    also carries the user's count of pending invitations (`pending`), for the
    header: a subquery PostgreSQL and SQLite evaluate once per statement."""
    if not hasattr(request, "_weir_memberships"):
        found = (
            Membership.objects.filter(user=request.user)
            .select_related("workspace")
            .annotate(pending=pending_count(request.user))
        )
        request._weir_memberships = sorted(
            found, key=lambda m: (not m.workspace.is_personal, m.workspace.name)
        )
    return request._weir_memberships


def current_membership(request, memberships: list[Membership]) -> Membership | None:
    """The membership of the workspace pages show (see the module docstring)."""
    by_id = {str(m.workspace_id): m for m in memberships}
    wanted = request.GET.get("workspace")
    if wanted and _uuid(wanted) in by_id:
        request.session[SESSION_KEY] = _uuid(wanted)
        return by_id[_uuid(wanted)]
    kept = by_id.get(request.session.get(SESSION_KEY, ""))
    return kept or (memberships[0] if memberships else None)


def workspaces(request) -> dict:
    """Template context processor: the switcher's workspaces, the current
    one, the user's role in it, what that role may do and how many
    invitations wait for the user. Lazy: one query the first time a template
    reads any of them, none on pages that never do (the admin's)."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    @functools.cache
    def header() -> dict:
        memberships = memberships_of(request)
        current = current_membership(request, memberships)
        role = current.role if current else None
        return {
            "workspace_memberships": memberships,
            "current_membership": current,
            "may_edit_flows": grants(role, FLOWS_EDIT),
            "may_run_flows": grants(role, RUNS_START),
            "may_manage_members": grants(role, MEMBERS_MANAGE),
            # The header's "Invitations (n)" link; a user with no membership
            # left (not one's own personal workspace) is asked apart.
            "pending_invitations": (
                memberships[0].pending if memberships else pending_for(user).count()
            ),
        }

    return {key: SimpleLazyObject(partial(_read, header, key)) for key in HEADER_KEYS}


HEADER_KEYS = (
    "workspace_memberships",
    "current_membership",
    "may_edit_flows",
    "may_run_flows",
    "may_manage_members",
    "pending_invitations",
)


def _read(header, key: str):
    return header()[key]


def _uuid(value: str) -> str:
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return ""
