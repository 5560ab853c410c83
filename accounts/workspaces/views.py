"""The workspace pages: making a team workspace and managing its members
(the same rules as /api/workspaces/:id/members, accounts/workspaces/members.py)."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from accounts.audit.actor import Actor
from accounts.workspaces.access import role_of
from accounts.workspaces.current import SESSION_KEY
from accounts.workspaces.invitations import (
    ADDRESS_LENGTH,
    INVITED,
    TooManyInvitations,
    Withdrawn,
    accept,
    decline,
    invite,
    pending_for,
    withdraw,
)
from accounts.workspaces.invitations import (
    TooManyWorkspaces as NoRoom,
)
from accounts.workspaces.members import (
    LastOwner,
    TooManyWorkspaces,
    change_role,
    create_workspace,
    find_user,
    refusal,
    remove_member,
)
from accounts.workspaces.models import Membership, Workspace
from accounts.workspaces.roles import MEMBERS_MANAGE, grants


@login_required
def workspace_new(request: HttpRequest) -> HttpResponse:
    """Make a team workspace (its maker the owner), then go to its members
    page with it picked in the switcher."""
    name = request.POST.get("name", "").strip() if request.method == "POST" else ""
    error = ""
    if request.method == "POST":
        if not name or len(name) > Workspace._meta.get_field("name").max_length:
            error = "Name the workspace (at most 100 characters)."
        else:
            try:
                workspace = create_workspace(
                    name, request.user, Actor.from_request(request)
                )
            except TooManyWorkspaces as refused:
                error = str(refused)
            else:
                request.session[SESSION_KEY] = str(workspace.pk)
                return redirect("members", workspace_id=workspace.pk)
    return render(
        request,
        "accounts/workspace_new.html",
        {"error": error, "typed": name},
        status=400 if error else 200,
    )


@login_required
def workspace_members(request: HttpRequest, workspace_id) -> HttpResponse:
    """A workspace's members; an admin adds, re-roles and removes them here
    (the same rules as /api/workspaces/:id/members, accounts/workspaces/
    members.py), each error shown next to the form that caused it."""
    workspace = get_object_or_404(
        Workspace.objects.for_user(request.user), pk=workspace_id
    )
    errors: dict[str, str] = {}
    if request.method == "POST":
        errors = change_members(request, workspace)
        if not errors:
            return redirect("members", workspace_id=workspace.pk)
    members = workspace.memberships.select_related("user").order_by("created_at")
    role = role_of(request.user, workspace.pk)
    may_manage = grants(role, MEMBERS_MANAGE)
    invitations = workspace.invitations.select_related("invited_by")
    return render(
        request,
        "accounts/members.html",
        {
            "workspace": workspace,
            "members": members,
            "roles": Membership.Role.choices,
            "role": role,
            "may_manage": may_manage,
            "invitations": invitations if may_manage else (),
            "errors": errors,
            "typed": request.POST.get("user", ""),
        },
        status=400 if errors else 200,
    )


def change_members(request: HttpRequest, workspace) -> dict[str, str]:
    """Apply the posted add, role change or removal; {form key: error}."""
    post, actor = request.POST, Actor.from_request(request)
    role = post.get("role", "")
    if post.get("action") == "add":
        typed = post.get("user", "").strip()
        if not typed:
            return {"add": "Give a username or e-mail."}
        if len(typed) > ADDRESS_LENGTH:
            return {"add": f"Give at most {ADDRESS_LENGTH} characters."}
        if role not in Membership.Role.values:
            return {"add": "Choose a role."}
        if reason := refusal(request.user, workspace.pk, role):
            return {"add": reason}
        # The same answer whether or not it names an account (nor a member).
        try:
            invite(workspace, find_user(typed), typed, role, actor)
        except TooManyInvitations as refused:
            return {"add": str(refused)}
        messages.success(request, INVITED)
        return {}
    if post.get("action") == "withdraw":
        return withdraw_invitation(request, workspace)
    membership = workspace.memberships.filter(pk=post.get("membership")).first()
    if membership is None:
        return {"add": "That member is no longer in this workspace."}
    key = str(membership.pk)
    leaving = post.get("action") == "remove" and membership.user_id == request.user.pk
    # An owner's membership (before or after) needs workspace.own, as in the API.
    roles = (
        (membership.role, role) if post.get("action") == "role" else (membership.role,)
    )
    if not leaving and (reason := refusal(request.user, workspace.pk, *roles)):
        return {key: reason}
    try:
        if post.get("action") == "role" and role in Membership.Role.values:
            change_role(membership, role, actor)
        elif post.get("action") == "remove":
            remove_member(membership, actor)
    except LastOwner:
        return {
            key: "A workspace keeps at least one owner: make someone else owner first."
        }
    except TooManyWorkspaces as refused:
        return {key: str(refused)}
    return {}


def withdraw_invitation(request: HttpRequest, workspace) -> dict[str, str]:
    """Withdraw the posted invitation: an admin's, an owner's for an
    invitation to own (as sending it was)."""
    invitation = workspace.invitations.filter(
        pk=_uuid_or_none(request.POST.get("invitation"))
    ).first()
    if invitation is None:
        return {"invitations": "That invitation was answered or withdrawn already."}
    if reason := refusal(request.user, workspace.pk, invitation.role):
        return {str(invitation.pk): reason}
    withdraw(invitation, Actor.from_request(request))
    messages.success(
        request,
        f"The invitation for {invitation.address} is withdrawn.",
        extra_tags="withdrawn",
    )
    return {}


@login_required
def invitations_page(request: HttpRequest) -> HttpResponse:
    """The caller's invitations: accept (joining with the offered role, if
    their cap allows) or decline, each answer beside its invitation."""
    pending = pending_for(request.user)
    errors: dict[str, str] = {}
    if request.method == "POST":
        invitation = pending.filter(pk=_uuid_or_none(request.POST.get("invitation")))
        invitation = invitation.first()
        actor = Actor.from_request(request)
        if invitation is None:
            errors["page"] = "That invitation is no longer open."
        elif request.POST.get("answer") == "accept":
            try:
                accept(invitation, actor)
            except NoRoom as refused:
                errors[str(invitation.pk)] = str(refused)
            except Withdrawn as withdrawn:  # gone from the list: said above it
                errors["page"] = str(withdrawn)
            else:
                return redirect("members", workspace_id=invitation.workspace_id)
        else:
            decline(invitation, actor)
        if not errors:
            return redirect("invitations")
    return render(
        request,
        "accounts/invitations.html",
        {"invitations": pending, "errors": errors},
        status=400 if errors else 200,
    )


def _uuid_or_none(value):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
