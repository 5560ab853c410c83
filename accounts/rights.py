"""The rights every `/api` route declares, and what token scopes grant.

One vocabulary for the whole API: each view names the right each of its
actions (a ViewSet) or HTTP methods (an APIView or function view) needs in a
class attribute `rights`; roles (accounts/workspaces/roles.py) and token scopes
(below) are sets of these names. A route that declares nothing is a mistake:
`required()` raises, and the route census (tests/accounts/test_rights.py)
fails the suite before any request can reach it.

This module imports nothing of Weir's, so every app and every layer of flows
may import it (pyproject.toml's import-linter contracts name it as their one
exception).
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

# flows, versions, diffs, runs' status/timing/error, agents list
FLOWS_VIEW = "flows.view"
CREDENTIALS_VIEW = "credentials.view"  # credential names and kinds, never values
RUNS_DATA = "runs.data"  # run input, results, steps, logs
RUNS_START = "runs.start"  # run by hand, cancel, resume by hand
AGENTS_CHAT = "agents.chat"  # chat with agents (a chat may run flows)
# create/edit/delete/import/restore flows, pins, webhook secret, schedules preview
FLOWS_EDIT = "flows.edit"
CREDENTIALS_EDIT = "credentials.edit"  # create/replace/delete credentials
AGENTS_EDIT = "agents.edit"  # create/edit/delete agents
MEMBERS_MANAGE = "members.manage"  # members, workspace tokens, moving a flow out
AUDIT_READ = "audit.read"
WORKSPACE_OWN = "workspace.own"  # delete the workspace, add/remove owners
# account, personal tokens: a signed-in browser only, never a token
SESSION_ONLY = "session.only"
PUBLIC = "public"  # sign-in, session probe, webhooks, resume links

ALL = frozenset(
    {
        FLOWS_VIEW,
        CREDENTIALS_VIEW,
        RUNS_DATA,
        RUNS_START,
        AGENTS_CHAT,
        FLOWS_EDIT,
        CREDENTIALS_EDIT,
        AGENTS_EDIT,
        MEMBERS_MANAGE,
        AUDIT_READ,
        WORKSPACE_OWN,
        SESSION_ONLY,
        PUBLIC,
    }
)

# What each token scope grants. SESSION_ONLY is in none of them, ever;
# PUBLIC needs nothing. Listed in the order the tokens page shows them.
SCOPE_RIGHTS: dict[str, frozenset[str]] = {
    # A flow names its credentials, so reading flows reads their names too.
    "flows:read": frozenset({FLOWS_VIEW, CREDENTIALS_VIEW}),
    "flows:write": frozenset({FLOWS_EDIT, AGENTS_EDIT}),
    "flows:run": frozenset({RUNS_START}),
    "runs:read": frozenset({FLOWS_VIEW, RUNS_DATA}),
    "credentials:read": frozenset({CREDENTIALS_VIEW}),
    "credentials:write": frozenset({CREDENTIALS_EDIT}),
    "agents:chat": frozenset({AGENTS_CHAT}),
    "audit:read": frozenset({AUDIT_READ}),
}


def granted_by(scopes) -> frozenset[str]:
    """The rights a token with these scopes holds (unknown scopes grant nothing)."""
    return frozenset().union(*(SCOPE_RIGHTS.get(scope, ()) for scope in scopes))


def token_allows(request, right: str) -> bool:
    """Whether the request's API token, if it came with one, grants `right`.

    For what a route shows only to some callers (a resume link needs
    RUNS_START though the list needs FLOWS_VIEW); sessions are not narrowed
    here. A token is any `request.auth` with a `granted` set of rights.
    """
    granted = getattr(getattr(request, "auth", None), "granted", None)
    return granted is None or right == PUBLIC or right in granted


def required(view, request) -> str:
    """The right `request` needs on `view` (a DRF view instance).

    A ViewSet's `rights` is keyed by action, any other view's by lower-case
    HTTP method (HEAD as GET). OPTIONS, and a method the view does not handle
    (DRF checks permissions before it answers 405), need nothing. Raises
    ImproperlyConfigured when the view declares nothing for what was asked.
    """
    method = request.method.lower()
    if method == "options":
        return PUBLIC
    declared = getattr(view, "rights", None) or {}
    if hasattr(view, "action_map"):  # a ViewSet: keyed by action
        key = getattr(view, "action", None)
        if key is None or method not in view.http_method_names:
            return PUBLIC
    else:
        key = "get" if method == "head" else method
        if not hasattr(view, key) or key not in view.http_method_names:
            return PUBLIC
    right = declared.get(key)
    if right not in ALL:
        raise ImproperlyConfigured(
            f"{type(view).__name__} declares no right for {key!r} (accounts/rights.py)."
        )
    return right


def requires(**methods: str):
    """Declare a function view's rights by HTTP method: `@requires(get=PUBLIC)`.

    Put it above `@api_view` (it then marks DRF's view class) or on a plain
    Django view (it marks the function the URL calls).
    """
    unknown = set(methods.values()) - ALL
    if unknown:
        raise ImproperlyConfigured(f"Unknown rights: {sorted(unknown)}")

    def mark(view):
        (getattr(view, "cls", None) or view).rights = dict(methods)
        return view

    return mark
