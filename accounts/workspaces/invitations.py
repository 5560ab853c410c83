"""Invitations: nobody becomes a member of a workspace without saying yes.

An admin names a username or e-mail; if it names an account that is not a
member yet, that account gets an invitation, shown in its header until it
accepts or declines. The answer is the same whether or not the name has an
account (`INVITED`), so the members form tells nobody who has one, and so
is the workspace's list of invitations waiting for an answer: every name
typed is kept as typed (`address`), one row per name, whether it reached an
account (`user`) or nobody (a name without an account, or a member's). An
admin withdraws any of them; a row without an account is never accepted by
anyone, not even an account made with that name later. Accepting
checks the invitee's own cap: an account controls (owns or administers) at
most `WORKSPACES_PER_USER` team workspaces, so nobody's quota fills up
without their say, and making workspaces for someone else and stepping down
gets around no cap. It also checks that whoever sent the invitation may still
grant its role: an admin removed or demoted since cannot bring anyone in
through an invitation they left open (docs/security.md, S22).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models, transaction
from django.db.models import Value
from django.db.models.functions import Coalesce, Lower

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import role_of
from accounts.workspaces.models import Membership, Workspace
from accounts.workspaces.roles import missing_to_manage

INVITED = (
    "If an account has this username or e-mail, it is invited; it joins once "
    "it accepts."
)
# The longest name an invitation keeps: an e-mail address's most.
ADDRESS_LENGTH = 254
# The roles that run a workspace: an owner, and an admin who manages members.
CONTROLLING = (Membership.Role.OWNER, Membership.Role.ADMIN)


class Invitation(models.Model):
    """An offer of `role` in `workspace` to `user`, until they answer."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="invitations"
    )
    # The account the name reached when it was sent; None: nobody's.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="invitations",
    )
    # The username or e-mail as the admin typed it, the row's key in its workspace.
    address = models.CharField(max_length=ADDRESS_LENGTH)
    role = models.CharField(max_length=16, choices=Membership.Role.choices)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "accounts"
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                Lower("address"), "workspace", name="invitation_once_per_address"
            )
        ]

    def __str__(self):
        return f"{self.address} to {self.workspace} as {self.role}"


class TooManyWorkspaces(Exception):
    """The account controls WORKSPACES_PER_USER team workspaces already."""

    def __init__(self, controlled: int, whose: str = "You"):
        verb = "control" if whose == "You" else "controls"
        super().__init__(
            f"{whose} {verb} {controlled} workspaces (as owner or admin), the most "
            "one account may; leave or delete one first."
        )


def controlled(user) -> int:
    """The team workspaces `user` owns or administers (one query)."""
    return Membership.objects.filter(
        user=user, role__in=CONTROLLING, workspace__personal_of__isnull=True
    ).count()


def check_room(user, role: str, whose: str = "You") -> None:
    """`TooManyWorkspaces` if taking `role` in one more team workspace would
    put `user` past the cap."""
    if role in CONTROLLING:
        count = controlled(user)
        if count >= settings.WORKSPACES_PER_USER:
            raise TooManyWorkspaces(count, whose)


class TooManyInvitations(Exception):
    """The workspace has `INVITATIONS_PER_WORKSPACE` waiting already."""

    def __str__(self):
        return (
            f"This workspace has {settings.INVITATIONS_PER_WORKSPACE} invitations "
            "waiting for an answer, the most it may; withdraw some first."
        )


def invite(workspace: Workspace, user, typed: str, role: str, actor: Actor) -> None:
    """Keep an invitation for `typed` (again: its role and sender renewed),
    for `user` if it names an account that is no member (None otherwise:
    a row nobody can accept, listed as any other); the audit event names only
    what was typed. `TooManyInvitations` for a new name past the cap."""
    with transaction.atomic():
        # The workspace's row serialises its invitations against the cap.
        Workspace.objects.select_for_update().filter(pk=workspace.pk).get()
        if user is not None and workspace.memberships.filter(user=user).exists():
            user = None
        # The constraint's own comparison (lower() in the database), so a
        # name it holds equal is always found here.
        waiting = workspace.invitations.alias(key=Lower("address")).filter(
            key=Lower(Value(typed))
        )
        renewed = waiting.update(role=role, invited_by=actor.user, user=user)
        if not renewed:
            if workspace.invitations.count() >= settings.INVITATIONS_PER_WORKSPACE:
                raise TooManyInvitations
            Invitation.objects.create(
                workspace=workspace,
                user=user,
                address=typed,
                role=role,
                invited_by=actor.user,
            )
        record(
            "member.invited",
            actor,
            workspace,
            target_label=typed[:200],
            changes={"workspace_id": str(workspace.pk), "role": role},
        )


def withdraw(invitation: Invitation, actor: Actor) -> None:
    """An admin takes back an invitation nobody answered yet."""
    with transaction.atomic():
        record(
            "member.invitation_withdrawn",
            actor,
            invitation.workspace,
            target_label=invitation.address[:200],
            changes={
                "workspace_id": str(invitation.workspace_id),
                "role": invitation.role,
            },
        )
        invitation.delete()


def _answered(invitation: Invitation) -> None:
    """Every invitation of its account to its workspace (two names typed for
    one account are two rows) ends with the first answer."""
    Invitation.objects.filter(
        workspace_id=invitation.workspace_id, user_id=invitation.user_id
    ).delete()


def pending_for(user):
    return Invitation.objects.filter(user=user).select_related(
        "workspace", "invited_by"
    )


def pending_count(user):
    """How many invitations wait for `user`, as a subquery (an expression to
    annotate another query of theirs with: no query of its own)."""
    counted = (
        Invitation.objects.filter(user=user)
        .order_by()
        .values("user")
        .annotate(n=models.Count("pk"))
        .values("n")
    )
    return Coalesce(models.Subquery(counted), 0)


class Withdrawn(Exception):
    """Whoever sent the invitation may no longer grant its role."""

    def __str__(self):
        return (
            "This invitation is withdrawn: whoever sent it may no longer add "
            "members with that role. Ask an admin of the workspace again."
        )


def sender_may_still_grant(invitation: Invitation) -> bool:
    """Whether whoever sent it may still add a member with its role (the
    members form's rule, `members.refusal`)."""
    sender = invitation.invited_by
    if sender is None or not sender.is_active:
        return False
    role = role_of(sender, invitation.workspace_id)
    return missing_to_manage(role, invitation.role) is None


def accept(invitation: Invitation, actor: Actor) -> Membership:
    """The invitee joins with the offered role; `TooManyWorkspaces` past
    their cap (checked under a lock on their personal workspace's row);
    `Withdrawn` (and the invitation deleted) when its sender may no longer
    grant the role."""
    if not sender_may_still_grant(invitation):
        invitation.delete()
        raise Withdrawn
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(
            personal_of=invitation.user
        ).exists()
        member = Membership.objects.filter(
            workspace_id=invitation.workspace_id, user=invitation.user
        ).first()
        if member is not None:  # joined through another name's invitation
            _answered(invitation)
            return member
        check_room(invitation.user, invitation.role)
        membership = Membership.objects.create(
            workspace=invitation.workspace,
            user=invitation.user,
            role=invitation.role,
            invited_by=invitation.invited_by,
        )
        record(
            "member.added",
            actor,
            membership,
            target_label=f"{invitation.user.get_username()} in "
            f"{invitation.workspace.name}",
            changes={
                "workspace_id": str(invitation.workspace_id),
                "role": invitation.role,
            },
        )
        _answered(invitation)
    return membership


def decline(invitation: Invitation, actor: Actor) -> None:
    with transaction.atomic():
        record(
            "member.declined",
            actor,
            invitation.workspace,
            target_label=invitation.user.get_username(),
            changes={"workspace_id": str(invitation.workspace_id)},
        )
        _answered(invitation)
