"""Membership changes, each with its audit event in one transaction.

The rules every caller (the API, a future page form) gets: only an owner
adds, removes or makes owners; a workspace never loses its last owner (409).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import role_of
from accounts.workspaces.invitations import (
    CONTROLLING,
    TooManyWorkspaces,  # noqa: F401  (raised here, caught by its callers)
    check_room,
)
from accounts.workspaces.models import Membership, Workspace
from accounts.workspaces.roles import ROLE_NAMES, missing_to_manage


class LastOwner(Exception):
    """The change would leave the workspace without an owner."""


OWNER_ROLE = Membership.Role.OWNER


def _owners(workspace_id) -> int:
    return Membership.objects.filter(workspace_id=workspace_id, role=OWNER_ROLE).count()


def find_user(value: str):
    """The only user with this e-mail (case-insensitive) when `value` holds an
    `@`, else the user with this username; None when there is none, or
    several share the e-mail.

    An address is never matched against usernames: a username may hold `@`
    (single sign-on takes the provider's `preferred_username`, which its user
    may choose), and an invitation typed as Bob's address went to whoever had
    taken that address as a username (docs/security.md, S21)."""
    users = get_user_model().objects
    if "@" in value:
        found = list(users.filter(email__iexact=value)[:2])
        return found[0] if len(found) == 1 else None
    return users.filter(username=value).first()


def refusal(user, workspace_id, *roles) -> str | None:
    """Why `user` may not manage these members (None when they may): it
    needs `members.manage`, and `workspace.own` when any of `roles` (before or
    after the change) is owner."""
    role = role_of(user, workspace_id)
    right = missing_to_manage(role, *roles)
    if right is None:
        return None
    return (
        f"As {ROLE_NAMES.get(role, 'a non-member')} of this workspace you "
        f"may not do this (it needs {right})."
    )


def _label(membership: Membership) -> str:
    return f"{membership.user.get_username()} in {membership.workspace.name}"


def add_member(
    workspace: Workspace,
    user,
    role: str,
    actor: Actor,
    source: str = Membership.Source.PEOPLE,
) -> Membership:
    with transaction.atomic():
        membership = Membership.objects.create(
            workspace=workspace,
            user=user,
            role=role,
            invited_by=actor.user,
            source=source,
        )
        record(
            "member.added",
            actor,
            membership,
            target_label=_label(membership),
            changes={"workspace_id": str(workspace.pk), "role": role},
        )
    return membership


def change_role(membership: Membership, role: str, actor: Actor) -> Membership:
    """Set `membership.role`; `LastOwner` if it demotes the only owner,
    `TooManyWorkspaces` if it makes owner or admin someone at their cap."""
    with transaction.atomic():
        # The workspace's row serialises owner changes: two admins demoting the
        # last two owners at once must not both succeed.
        Workspace.objects.select_for_update().filter(pk=membership.workspace_id).get()
        before = Membership.objects.get(pk=membership.pk).role
        if (
            before == OWNER_ROLE
            and role != OWNER_ROLE
            and _owners(membership.workspace_id) <= 1
        ):
            raise LastOwner
        # Made owner or admin, they control one more workspace: their cap.
        if before not in CONTROLLING:
            check_room(membership.user, role, membership.user.get_username())
        membership.role = role
        membership.save(update_fields=["role"])
        record(
            "member.role_changed",
            actor,
            membership,
            target_label=_label(membership),
            changes={
                "workspace_id": str(membership.workspace_id),
                "from": before,
                "to": role,
            },
        )
    return membership


def remove_member(membership: Membership, actor: Actor) -> None:
    """Delete `membership`; `LastOwner` if it is the only owner."""
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=membership.workspace_id).get()
        if membership.role == OWNER_ROLE and _owners(membership.workspace_id) <= 1:
            raise LastOwner
        record(
            "member.removed",
            actor,
            membership,
            target_label=_label(membership),
            changes={
                "workspace_id": str(membership.workspace_id),
                "role": membership.role,
            },
        )
        membership.delete()


def create_workspace(name: str, user, actor: Actor) -> Workspace:
    """A new team workspace named `name`, `user` its owner (the API and the
    New workspace page alike). `TooManyWorkspaces` past WORKSPACES_PER_USER
    team workspaces controlled (owned or administered): the schedule and
    queue caps count per workspace, so free workspaces would multiply them
    without end, and stepping down to admin must not make room."""
    with transaction.atomic():
        # The user's personal workspace row serialises their creations.
        Workspace.objects.select_for_update().filter(personal_of=user).exists()
        check_room(user, OWNER_ROLE)
        workspace = Workspace.objects.create(
            name=name, slug=Workspace.unique_slug(name)
        )
        Membership.objects.create(
            workspace=workspace, user=user, role=Membership.Role.OWNER
        )
        record("workspace.created", actor, workspace)
    return workspace
