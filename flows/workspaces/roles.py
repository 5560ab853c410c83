"""The one table of rights per role (docs/security.md, "Workspaces and roles").

Rights are the names of `config/accounts/rights.py` (docs/api.md); they are
repeated here as plain strings because flows sits below config.accounts in
the layers, and a test checks that both spell them alike.
"""

from __future__ import annotations

FLOWS_VIEW = "flows.view"
RUNS_DATA = "runs.data"
RUNS_START = "runs.start"
AGENTS_CHAT = "agents.chat"
FLOWS_EDIT = "flows.edit"
CREDENTIALS_EDIT = "credentials.edit"
AGENTS_EDIT = "agents.edit"
MEMBERS_MANAGE = "members.manage"
AUDIT_READ = "audit.read"
WORKSPACE_OWN = "workspace.own"

VIEWER = frozenset({FLOWS_VIEW})
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


def grants(role: str | None, right: str) -> bool:
    """Whether `role` (None: not a member) holds `right`."""
    return role is not None and right in ROLE_RIGHTS.get(role, frozenset())
