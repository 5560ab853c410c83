"""The promotion page: pick flows and a workspace, read the diff, then apply.

Server-rendered in three steps on one URL: the form (GET), the plan of a dry
run with each flow's diff (POST `step=preview`), and the result (POST
`step=apply`, which plans again: what is applied is what is there now). It
calls the same `promote` as `POST /api/workspaces/:id/promote`, so the rules
and the errors are the API's, shown beside the form.
"""

from __future__ import annotations

import uuid

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_http_methods
from rest_framework.exceptions import APIException

from accounts.workspaces.access import can, workspace_ids_where
from accounts.workspaces.models import Workspace
from accounts.workspaces.roles import MEMBERS_MANAGE
from flows.git.promote_api import MAX_FLOWS, promote, target_of


@login_required
@require_http_methods(["GET", "POST"])
def promote_page(request: HttpRequest, workspace_id) -> HttpResponse:
    mine = Workspace.objects.for_user(request.user)
    source = mine.filter(pk=workspace_id).first()
    if source is None:
        raise Http404("No workspace of yours has this id.")
    if not can(request.user, source, MEMBERS_MANAGE):
        raise PermissionDenied("Only an admin of this workspace promotes its flows.")
    targets = (
        Workspace.objects.filter(
            pk__in=workspace_ids_where(request.user, MEMBERS_MANAGE)
        )
        .exclude(pk=source.pk)
        .order_by("name")
    )
    data = request.POST if request.method == "POST" else request.GET
    chosen = data.getlist("flow")
    context = {
        "workspace": source,
        "flows": source.flows.order_by("name"),
        "targets": targets,
        "chosen": chosen,
        "to": data.get("to", ""),
    }
    step = request.POST.get("step") if request.method == "POST" else None
    if step in ("preview", "apply"):
        status = _plan(request, source, context, apply=step == "apply")
        return render(request, "flows/promote.html", context, status=status)
    return render(request, "flows/promote.html", context)


def _plan(request, source, context: dict, *, apply: bool) -> int:
    """Fill `context` with the plan (or the error); the page's status code."""
    if not context["chosen"]:
        context["error"] = "Choose at least one flow to promote."
        return 400
    if len(context["chosen"]) > MAX_FLOWS:
        context["error"] = f"Promote at most {MAX_FLOWS} flows at a time."
        return 400
    try:
        target = target_of(request, source, _uuid_or_none(context["to"]))
        answer = promote(request, source, target, context["chosen"], dry_run=not apply)
    except APIException as error:
        context["error"] = str(getattr(error, "detail", error))
        details = getattr(error, "details", None) or {}
        context["missing"] = details.get("missing_credentials", [])
        return getattr(error, "status_code", 400)
    for flow_step in answer["steps"]:
        flow_step["lines"] = diff_lines(flow_step.get("diff", ""))
    context["target"] = target
    context["answer"] = answer
    context["changes"] = answer["counts"]["create"] + answer["counts"]["update"]
    return 200


def diff_lines(diff: str) -> list[tuple[str, str]]:
    """A unified diff as `(kind, line)`: `added`, `removed` or `` (context and
    headers), for the page to colour each line."""
    lines = []
    for line in diff.splitlines():
        kind = ""
        if line.startswith("+") and not line.startswith("+++"):
            kind = "added"
        elif line.startswith("-") and not line.startswith("---"):
            kind = "removed"
        lines.append((kind, line))
    return lines


def _uuid_or_none(value: str):
    """The `to` field as given: `target_of` finds no workspace for a blank."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
