"""Who may do what: the one place a request, a page or the engine asks.

A user reaches a workspace's flows, runs, credentials and agents only as a
member (`in_workspaces_of`); anyone else finds nothing (404, as another
user's flow always has). What a member may do with them is their role's
rights (accounts/workspaces/roles.py), read live from the database on every
check: a removed or demoted member loses access on their next request.
"""

from __future__ import annotations

from django.db.models import OuterRef, Subquery

from accounts.workspaces.models import Membership
from accounts.workspaces.roles import ROLES, grants


def memberships_of(user):
    """`user`'s memberships; for a request made with an API token, only the
    one in the token's workspace (`token_workspace_id`, which the bearer
    authentication sets on the request's user): a token reaches one workspace.
    A workspace token's service account (accounts/tokens/service.py)
    brings its own: rows with the same `workspace_id` and `role`."""
    service = getattr(user, "service_memberships", None)
    if service is not None:  # a workspace token: its own row stands for one
        return service
    memberships = Membership.objects.filter(user=user)
    only = getattr(user, "token_workspace_id", None)
    return memberships if only is None else memberships.filter(workspace_id=only)


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


def in_workspaces_of(queryset, user, path: str = "workspace"):
    """`queryset` narrowed to rows whose workspace (`path`, e.g.
    `flow__workspace`) `user` is a member of; nothing for anonymous users."""
    if user is None or not user.is_authenticated:
        return queryset.none()
    return queryset.filter(**{f"{path}__in": member_workspace_ids(user)})


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
