"""The role matrix: each main route × {non-member, viewer, runner, editor,
admin, owner} × {session, token} answers the status the roles table says
(docs/security.md). A token carries every scope and is made for the team (the
non-member's for their own workspace): it may do what its maker's role may,
except what needs a signed-in browser (no scope grants managing members or
owning the workspace)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import SCOPES, WORKSPACE_SCOPES, ApiToken
from tests.factories import FlowRunFactory, UserFactory, make_credential

pytestmark = pytest.mark.django_db

WHO = (None, "viewer", "runner", "editor", "admin", "owner")

# (method, path, body, statuses for WHO in order)
ROUTES = [
    ("get", "/api/flows/{flow}", None, (404, 200, 200, 200, 200, 200)),
    ("get", "/api/flows/{flow}/versions", None, (404, 200, 200, 200, 200, 200)),
    ("get", "/api/flows/{flow}/export", None, (404, 200, 200, 200, 200, 200)),
    ("patch", "/api/flows/{flow}", {"name": "x"}, (404, 403, 403, 200, 200, 200)),
    ("post", "/api/flows/{flow}/run", {}, (404, 403, 200, 200, 200, 200)),
    ("delete", "/api/flows/{flow}", None, (404, 403, 403, 200, 200, 200)),
    ("post", "/api/flows/{flow}/webhook-secret", None, (404, 403, 403, 201, 201, 201)),
    ("get", "/api/runs/{run}", None, (404, 200, 200, 200, 200, 200)),
    ("post", "/api/runs/{run}/cancel", None, (404, 403, 200, 200, 200, 200)),
    ("post", "/api/runs/{run}/rerun", None, (404, 403, 200, 200, 200, 200)),
    # The run succeeded: a runner learns that (409), a viewer only that they may not.
    ("post", "/api/runs/{run}/retry", None, (404, 403, 409, 409, 409, 409)),
    ("get", "/api/credentials/{credential}", None, (404, 200, 200, 200, 200, 200)),
    (
        "patch",
        "/api/credentials/{credential}",
        {"token": "new"},
        (404, 403, 403, 200, 200, 200),
    ),
    # A loopback URL no allowlist names: an answer (ok false), nothing sent.
    (
        "post",
        "/api/credentials/{credential}/test",
        {"url": "http://127.0.0.1:9/"},
        (404, 403, 403, 200, 200, 200),
    ),
    ("get", "/api/workspaces/{team}/members", None, (404, 200, 200, 200, 200, 200)),
    (
        "post",
        "/api/workspaces/{team}/members",
        {"user": "carol", "role": "viewer"},
        (404, 403, 403, 403, 202, 202),
    ),
    ("patch", "/api/workspaces/{team}", {"name": "x"}, (404, 403, 403, 403, 403, 200)),
    (
        "get",
        "/api/workspaces/{team}/invitations",
        None,
        (404, 403, 403, 403, 200, 200),
    ),
]
# What a token gets where it differs from its maker's session: no token
# manages members or renames a workspace, whatever the maker's role (refused
# before any lookup, so a non-member's token learns nothing either).
BROWSER_ONLY = {
    ("post", "/api/workspaces/{team}/members"),
    ("patch", "/api/workspaces/{team}"),
    ("get", "/api/workspaces/{team}/invitations"),
}


def with_token(method, path, who, status):
    if (method, path) in BROWSER_ONLY:
        return 403
    return status


CASES = [
    pytest.param(
        method, path, body, who, via, status, id=f"{method} {path} {who} {via}"
    )
    for method, path, body, statuses in ROUTES
    for who, session_status in zip(WHO, statuses, strict=True)
    for via, status in (
        ("session", session_status),
        ("token", with_token(method, path, who, session_status)),
    )
]


@pytest.fixture
def as_caller(as_member, members, bob, team):
    """`as_caller(role, via)`: `as_member(role)`, or a script holding a token
    with every scope made by that member for `team` (bob's for his own)."""

    def client(role, via):
        if via == "session":
            return as_member(role)
        expires_at = timezone.now() + timedelta(days=1)
        maker, workspace = (members[role], team) if role else (bob, None)
        _, value = ApiToken.issue(maker, "matrix", SCOPES, expires_at, workspace)
        api = APIClient(enforce_csrf_checks=True)
        api.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
        return api

    return client


@pytest.mark.parametrize(("method", "path", "body", "who", "via", "status"), CASES)
def test_each_role_gets_the_tables_status(
    as_caller, members, team, team_flow, method, path, body, who, via, status
):
    UserFactory(username="carol")
    ids = {
        "flow": team_flow.id,
        "run": FlowRunFactory(flow=team_flow).id,
        "credential": make_credential(members["owner"], workspace=team).id,
        "team": team.id,
    }

    caller = as_caller(who, via)
    response = getattr(caller, method)(path.format(**ids), body, format="json")

    assert response.status_code == status, response.content


CAPS = ("viewer", "runner", "editor")
WORKSPACE_TOKEN_CASES = [
    pytest.param(
        method,
        path,
        body,
        cap,
        with_token(method, path, cap, status),
        id=f"{method} {path} {cap}",
    )
    for method, path, body, statuses in ROUTES
    for cap, status in zip(WHO, statuses, strict=True)
    if cap in CAPS
]


@pytest.mark.parametrize(
    ("method", "path", "body", "cap", "status"), WORKSPACE_TOKEN_CASES
)
def test_a_workspace_token_gets_its_role_caps_status(
    members, team, team_flow, method, path, body, cap, status
):
    """A workspace token (weir_wst_) with every scope it may hold answers as a
    member of its role cap's role, by a token."""
    UserFactory(username="carol")
    ids = {
        "flow": team_flow.id,
        "run": FlowRunFactory(flow=team_flow).id,
        "credential": make_credential(members["owner"], workspace=team).id,
        "team": team.id,
    }
    expires_at = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue_for_workspace(
        team, members["admin"], "matrix", WORKSPACE_SCOPES, expires_at, cap
    )
    caller = APIClient(enforce_csrf_checks=True)
    caller.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")

    response = getattr(caller, method)(path.format(**ids), body, format="json")

    assert response.status_code == status, response.content
