"""The personal workspace every user has: made when the account is made.

Chosen over creating it in each code path that makes users (sign-up does not
exist; `createsuperuser`, the admin, `seed_demo` and tests all make users): a
`post_save` receiver on the user model, connected in `FlowsConfig.ready()`,
catches them all. `personal_workspace` also makes one for a user who has none
(an account made with `bulk_create` or raw SQL), so nothing depends on the
receiver having run.
"""

from __future__ import annotations

from django.db import transaction

from accounts.workspaces.models import Membership, Workspace


def personal_workspace(user) -> Workspace:
    """`user`'s personal workspace, made (with their owner membership) if
    missing. One query when it exists."""
    workspace = Workspace.objects.filter(personal_of=user).first()
    return workspace or make_personal_workspace(user)


def default_workspace(user) -> Workspace:
    """Where something made without naming a workspace lands: the API token's
    workspace for a request made with one (a token reaches only it), else the
    user's personal workspace."""
    only = getattr(user, "token_workspace_id", None)
    if only is not None:
        return Workspace.objects.get(pk=only)
    return personal_workspace(user)


def make_personal_workspace(user) -> Workspace:
    with transaction.atomic():
        workspace = Workspace.objects.create(
            name=user.get_username(),
            slug=Workspace.unique_slug(user.get_username()),
            personal_of=user,
        )
        Membership.objects.create(
            workspace=workspace, user=user, role=Membership.Role.OWNER
        )
    return workspace


def on_user_saved(sender, instance, created, raw=False, **kwargs):
    """post_save receiver: a new account gets its personal workspace."""
    if created and not raw:
        make_personal_workspace(instance)
