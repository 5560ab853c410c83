"""Who may do what: the one place a request, a page or the engine asks.

A user reaches a workspace's flows, runs, credentials and agents only as a
member (`Workspace.objects.for_user`, and each workspace-owned model's
`objects.for_user`, accounts/workspaces/owned.py); anyone else finds
nothing (404, as another user's flow always has). What a member may do
with them is their role's rights (accounts/workspaces/roles.py), read live
from the database on every check: a removed or demoted member loses access
on their next request.
"""

from __future__ import annotations

from django.db.models import OuterRef, Subquery

from accounts.workspaces.models import Membership
from accounts.workspaces.roles import ROLES, grants


def memberships_of(user):
    """`user`'s memberships, narrowed to a token's one workspace
    (`Membership.objects.of`)."""
    return Membership.objects.of(user)


def role_of(user, workspace) -> str | None:
    """`user`'s role in `workspace` (an instance or an id), None if not a
    member. One query; never cached."""
    if user is None or not user.is_authenticated:
        return None
    workspace_id = getattr(workspace, "pk", workspace)
    return (
        memberships_of(user)
        .filter(workspace_id=workspace_id)
        .values_list("role", flat=True)
        .first()
    )


def role_subquery(user, workspace_field: str = "workspace_id"):
    """`role_of` as a subquery, to annotate the rows of a query with the
    caller's role in each one's workspace (None where not a member): the role
    is read live, in the same statement as the rows, instead of one query more."""
    return Subquery(
        memberships_of(user)
        .filter(workspace_id=OuterRef(workspace_field))
        .values("role")[:1]
    )


def can(user, workspace, right: str) -> bool:
    """Whether `user` holds `right` in `workspace` (one query)."""
    return grants(role_of(user, workspace), right)


def member_workspace_ids(user):
    """A subquery of the ids of the workspaces `user` belongs to."""
    return memberships_of(user).values("workspace_id")


def workspace_ids_where(user, right: str):
    """A subquery of the ids of the workspaces where `user`'s role holds `right`."""
    roles = [role for role in ROLES if grants(role, right)]
    return memberships_of(user).filter(role__in=roles).values("workspace_id")


def person(user):
    """`user` if a person (a row of the user table), None for a workspace
    token's service account: what `created_by` and the audit's actor keep."""
    return user if getattr(user, "pk", None) is not None else None


def whose_work(user) -> dict:
    """The admission caps a person's synchronous work (a chat turn, a save, an
    MCP call) counts under: theirs, or for a workspace token its workspace's
    (all tokens would otherwise share one key) and that workspace's account."""
    if person(user) is None:
        workspace_id = getattr(user, "token_workspace_id", None)
        return {"workspace_id": workspace_id, "account_id": account_of(workspace_id)}
    return {"owner_id": user.pk, "account_id": user.pk}


def flow_work(flow) -> dict:
    """The admission caps a run of `flow` counts under: its workspace's, its
    account's and its own."""
    account_id = account_of(flow.workspace_id)
    return {
        "workspace_id": flow.workspace_id,
        "account_id": account_id,
        "flow_id": flow.pk,
    }


# workspace id -> account id, per process: a workspace's earliest member changes
# rarely, and a stale entry only moves whose cap a run counts under.
_ACCOUNTS: dict = {}
ACCOUNTS_KEPT = 4096


def account_of(workspace_id) -> int | None:
    """The person whose account a workspace is part of: its earliest member,
    whatever their role now (its maker while they stay; for a personal
    workspace, its person). One account's workspaces share one admission cap
    (docs/operations.md, "One account, one share"), so nobody takes every
    synchronous slot by spreading flows over workspaces, nor charges their
    runs to someone they make owner and then step down for (ids are random:
    they order nothing)."""
    if workspace_id is None:
        return None
    if workspace_id not in _ACCOUNTS:
        if len(_ACCOUNTS) >= ACCOUNTS_KEPT:
            _ACCOUNTS.clear()
        _ACCOUNTS[workspace_id] = (
            Membership.objects.filter(workspace_id=workspace_id)
            .order_by("created_at", "pk")
            .values_list("user_id", flat=True)
            .first()
        )
    return _ACCOUNTS[workspace_id]


def forget_accounts() -> None:
    """Empty the per-process table of accounts (tests: ids are reused)."""
    _ACCOUNTS.clear()
