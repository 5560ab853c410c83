"""The Variables page of a workspace: every member reads them; editors and
up add, change and delete them here (the rules of accounts/workspaces/
variables.py, as in /api/workspaces/:id/variables), each error beside the
form that caused it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.audit.actor import Actor
from accounts.workspaces.access import role_of
from accounts.workspaces.models import Workspace
from accounts.workspaces.roles import FLOWS_EDIT, ROLE_NAMES, grants
from accounts.workspaces.variables import (
    NAME_CHARS,
    VALUE_CHARS,
    Invalid,
    Taken,
    create_variable,
    delete_variable,
    update_variable,
)


@login_required
def workspace_variables(request: HttpRequest, workspace_id) -> HttpResponse:
    workspace = get_object_or_404(
        Workspace.objects.for_user(request.user), pk=workspace_id
    )
    role = role_of(request.user, workspace.pk)
    may_edit = grants(role, FLOWS_EDIT)
    errors: dict[str, str] = {}
    if request.method == "POST":
        if not may_edit:
            errors = {"add": f"As {ROLE_NAMES.get(role)} you may not change variables."}
        else:
            errors = change_variables(request, workspace)
        if not errors:
            return redirect("variables", workspace_id=workspace.pk)
    return render(
        request,
        "accounts/variables.html",
        {
            "workspace": workspace,
            "variables": workspace.variables.all(),
            "role": role,
            "may_edit": may_edit,
            "errors": errors,
            "typed": request.POST if errors else {},
            "name_chars": NAME_CHARS,
            "value_chars": VALUE_CHARS,
        },
        status=400 if errors else 200,
    )


def change_variables(request: HttpRequest, workspace) -> dict[str, str]:
    """Apply the posted add, save or delete; {form key: error}, the key being
    "add" or the variable's id."""
    post, actor = request.POST, Actor.from_request(request)
    name, value = post.get("name", "").strip(), post.get("value", "")
    if post.get("action") == "add":
        try:
            create_variable(workspace, name, value, actor)
        except (Invalid, Taken) as refused:
            return {"add": str(refused)}
        return {}
    variable = next(
        (v for v in workspace.variables.all() if str(v.pk) == post.get("variable")),
        None,
    )
    if variable is None:
        return {"add": "That variable is no longer in this workspace."}
    try:
        if post.get("action") == "delete":
            delete_variable(variable, actor)
        else:
            update_variable(variable, name, value, actor)
    except (Invalid, Taken) as refused:
        return {str(variable.pk): str(refused)}
    return {}
