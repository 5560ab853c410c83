"""The API tokens pages: yours (`/account/tokens/`) and a workspace's
(`/workspaces/<id>/tokens/`, its admins'); changes go through the API."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, render

from accounts import rights
from accounts.tokens.api import ApiTokenSerializer
from accounts.tokens.models import ROLE_CAPS, SCOPES, WORKSPACE_SCOPES, ApiToken
from accounts.tokens.workspace_api import WorkspaceTokenSerializer
from accounts.workspaces.access import can, memberships_of
from accounts.workspaces.models import Workspace

SCOPE_DESCRIPTIONS = {
    "flows:read": "see flows, their versions, runs' status and credential names",
    "flows:write": "create, change and delete flows and agents",
    "flows:run": "run flows by hand, cancel runs",
    "runs:read": "read runs' input, results, steps and logs",
    "credentials:read": "see credential names only (never their values)",
    "credentials:write": "create, replace and delete credentials",
    "agents:chat": "chat with agents (a chat may run flows)",
    "audit:read": "read the workspace's audit log (admins)",
}
EXPIRY_DAYS = (7, 30, 90, 180, 366)


def _expiry_choices() -> list[int]:
    longest = settings.API_TOKEN_MAX_DAYS
    return [days for days in EXPIRY_DAYS if days <= longest] or [longest]


@login_required
def tokens_page(request):
    tokens = ApiTokenSerializer(
        request.user.api_tokens.filter(revoked_at__isnull=True), many=True
    ).data
    memberships = list(
        memberships_of(request.user)
        .select_related("workspace")
        .order_by("workspace__name")
    )
    return render(
        request,
        "accounts/tokens.html",
        {
            "tokens": tokens,
            "endpoint": "/api/tokens",
            "memberships": memberships,
            "workspace_names": {
                str(m.workspace_id): m.workspace.name for m in memberships
            },
            "scopes": [(scope, SCOPE_DESCRIPTIONS[scope]) for scope in SCOPES],
            "expiry_choices": _expiry_choices(),
        },
    )


@login_required
def workspace_tokens_page(request, workspace_id):
    """404 for a non-member, 403 for a member who is not an admin."""
    workspace = get_object_or_404(
        Workspace.objects.for_user(request.user), pk=workspace_id
    )
    if not can(request.user, workspace.pk, rights.MEMBERS_MANAGE):
        raise PermissionDenied("Only admins of the workspace see its tokens.")
    tokens = WorkspaceTokenSerializer(
        ApiToken.objects.of_workspace(workspace)
        .filter(revoked_at__isnull=True)
        .select_related("created_by"),
        many=True,
    ).data
    return render(
        request,
        "accounts/tokens.html",
        {
            "workspace": workspace,
            "tokens": tokens,
            "endpoint": f"/api/workspaces/{workspace.pk}/tokens",
            "workspace_names": {},
            "role_caps": ROLE_CAPS,
            "scopes": [
                (scope, SCOPE_DESCRIPTIONS[scope]) for scope in WORKSPACE_SCOPES
            ],
            "expiry_choices": _expiry_choices(),
        },
    )
