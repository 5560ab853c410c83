"""The role matrix: each main route × {non-member, viewer, runner, editor,
admin, owner} answers the status the roles table says (docs/security.md)."""

from __future__ import annotations

import pytest

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
    ("get", "/api/credentials/{credential}", None, (404, 200, 200, 200, 200, 200)),
    (
        "patch",
        "/api/credentials/{credential}",
        {"token": "new"},
        (404, 403, 403, 200, 200, 200),
    ),
    ("get", "/api/workspaces/{team}/members", None, (404, 200, 200, 200, 200, 200)),
    (
        "post",
        "/api/workspaces/{team}/members",
        {"user": "carol", "role": "viewer"},
        (404, 403, 403, 403, 201, 201),
    ),
    ("patch", "/api/workspaces/{team}", {"name": "x"}, (404, 403, 403, 403, 403, 200)),
]
CASES = [
    pytest.param(method, path, body, who, status, id=f"{method} {path} {who}")
    for method, path, body, statuses in ROUTES
    for who, status in zip(WHO, statuses, strict=True)
]


@pytest.mark.parametrize(("method", "path", "body", "who", "status"), CASES)
def test_each_role_gets_the_tables_status(
    as_member, members, team, team_flow, method, path, body, who, status
):
    UserFactory(username="carol")
    ids = {
        "flow": team_flow.id,
        "run": FlowRunFactory(flow=team_flow).id,
        "credential": make_credential(members["owner"], workspace=team).id,
        "team": team.id,
    }

    response = getattr(as_member(who), method)(path.format(**ids), body, format="json")

    assert response.status_code == status, response.content
