"""The audit page of a workspace (`/workspaces/<id>/audit/`), for its admins:
the events of `GET /api/workspaces/:id/audit`, with its filters and cursor."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from rest_framework.exceptions import NotFound
from rest_framework.request import Request

from accounts.audit.changes import readable_changes
from accounts.audit.models import AuditEvent
from accounts.audit_api import AuditFilterForm, apply_audit_filters
from accounts.rights import AUDIT_READ
from accounts.workspaces.access import can
from accounts.workspaces.models import Workspace
from core.http.pagination import NewestFirstCursor


@login_required
def workspace_audit(request: HttpRequest, workspace_id) -> HttpResponse:
    """404 for a non-member, 403 for a member who may not read the audit log;
    a bad filter is said above an empty table."""
    workspace = get_object_or_404(
        Workspace.objects.for_user(request.user), pk=workspace_id
    )
    if not can(request.user, workspace.pk, AUDIT_READ):
        raise PermissionDenied("Only admins of the workspace read its audit log.")
    form = AuditFilterForm(request.GET)
    rows, next_url, problem = [], None, ""
    if form.is_valid():
        filters = {name: value for name, value in form.cleaned_data.items() if value}
        events = apply_audit_filters(
            AuditEvent.objects.filter(workspace=workspace), filters
        )
        paginator = NewestFirstCursor()
        try:
            page = paginator.paginate_queryset(events, Request(request))
        except NotFound:
            raise Http404("No such page of the audit log.") from None
        next_url = paginator.get_next_link()
        rows = [
            (event, readable_changes(event.changes, event.target_type))
            for event in page
        ]
    else:
        name, errors = next(iter(form.errors.items()))
        problem = f"The filter {name!r} is not valid: {errors[0]}"
    return render(
        request,
        "accounts/audit.html",
        {
            "workspace": workspace,
            "rows": rows,
            "next_url": next_url,
            "problem": problem,
            "values": {name: request.GET.get(name, "") for name in form.fields},
            "filtered": any(request.GET.get(name) for name in form.fields),
        },
    )
