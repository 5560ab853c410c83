"""The one table of rights per role (docs/security.md, "Workspaces and roles").

The rights are accounts/rights.py's names (the vocabulary every view
declares); re-exported here for the flows code that checks roles.
"""

from __future__ import annotations

from accounts.rights import (
    AGENTS_CHAT,
    AGENTS_EDIT,
    AUDIT_READ,
    CREDENTIALS_EDIT,
    CREDENTIALS_VIEW,
    FLOWS_EDIT,
    FLOWS_VIEW,
    MEMBERS_MANAGE,
    RUNS_DATA,
    RUNS_START,
    WORKSPACE_OWN,
)

__all__ = [
    "AGENTS_CHAT",
    "AGENTS_EDIT",
    "AUDIT_READ",
    "CREDENTIALS_EDIT",
    "CREDENTIALS_VIEW",
    "FLOWS_EDIT",
    "FLOWS_VIEW",
    "MEMBERS_MANAGE",
    "ROLES",
    "ROLE_NAMES",
    "ROLE_RIGHTS",
    "RUNS_DATA",
    "RUNS_START",
    "WORKSPACE_OWN",
    "grants",
]

VIEWER = frozenset({FLOWS_VIEW, CREDENTIALS_VIEW})
RUNNER = VIEWER | {RUNS_DATA, RUNS_START, AGENTS_CHAT}
EDITOR = RUNNER | {FLOWS_EDIT, CREDENTIALS_EDIT, AGENTS_EDIT}
ADMIN = EDITOR | {MEMBERS_MANAGE, AUDIT_READ}
OWNER = ADMIN | {WORKSPACE_OWN}

# From least to most; a role grants every right of the roles before it.
ROLE_RIGHTS: dict[str, frozenset[str]] = {
    "viewer": VIEWER,
    "runner": RUNNER,
    "editor": EDITOR,
    "admin": ADMIN,
    "owner": OWNER,
}
ROLES = tuple(ROLE_RIGHTS)


# How messages name a role ("As a viewer of this workspace ...").
ROLE_NAMES = {
    "viewer": "a viewer",
    "runner": "a runner",
    "editor": "an editor",
    "admin": "an admin",
    "owner": "an owner",
}


def grants(role: str | None, right: str) -> bool:
    """Whether `role` (None: not a member) holds `right`."""
    return role is not None and right in ROLE_RIGHTS.get(role, frozenset())


def missing_to_manage(role: str | None, *roles: str) -> str | None:
    """The right `role` lacks to add, change or remove members with `roles`
    (before or after the change), or None: `members.manage`, and
    `workspace.own` when any of them is owner."""
    needed = [MEMBERS_MANAGE]
    if "owner" in roles:
        needed.append(WORKSPACE_OWN)
    return next((right for right in needed if not grants(role, right)), None)
