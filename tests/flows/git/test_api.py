"""`POST /api/workspaces/:id/sync`: CI applies a directory of flow files as a
JSON bundle; an admin's right, or a workspace token's with flows:write."""

from __future__ import annotations

import json
from datetime import timedelta

from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership
from flows.git.files import export_workspace
from flows.history.models import FlowVersion
from tests.accounts.test_bearer import bearer
from tests.factories import FlowFactory, UserFactory
from tests.flows.graphs import chain, code, node, trigger


def bundle(workspace, **options) -> dict:
    files = {
        name: json.loads(text) for name, text in export_workspace(workspace).items()
    }
    return {"files": files, **options}


def browser(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def sync(client, workspace, body):
    return client.post(f"/api/workspaces/{workspace.id}/sync", body, format="json")


def test_an_admin_syncs_a_bundle_and_a_second_sync_changes_nothing(
    staging_flows, staging, production, ops
):
    body = bundle(staging)

    first = sync(browser(ops), production, body)
    versions = FlowVersion.objects.count()
    second = sync(browser(ops), production, body)

    assert first.status_code == 200
    assert first.json()["applied"] is True
    assert first.json()["counts"] == {
        "create": 2,
        "update": 0,
        "delete": 0,
        "unchanged": 0,
    }
    assert second.json()["counts"]["unchanged"] == 2
    assert FlowVersion.objects.count() == versions
    assert (
        FlowVersion.objects.filter(flow__workspace=production).first().source == "git"
    )


def test_a_dry_run_answers_the_plan_with_diffs_and_applies_nothing(
    staging_flows, staging, production, ops
):
    sync(browser(ops), production, bundle(staging))
    body = bundle(staging, dry_run=True, prune=True)
    body["files"]["say-hello.json"]["name"] = "Say hi"
    del body["files"]["charge-customers.json"]

    answer = sync(browser(ops), production, body).json()

    assert answer["applied"] is False
    steps = {step["key"]: step for step in answer["steps"]}
    assert steps["say-hello"]["action"] == "update"
    assert '+  "name": "Say hi",' in steps["say-hello"]["diff"]
    assert steps["charge-customers"]["action"] == "delete"
    assert production.flows.count() == 2
    assert not production.flows.filter(name="Say hi").exists()


def test_missing_credentials_are_409_listing_them(
    staging_flows, staging, production, ops
):
    production.credentials.all().delete()

    response = sync(browser(ops), production, bundle(staging))

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "missing_credentials"
    assert error["details"]["credentials"] == [
        {"name": "stripe", "kind": "bearer", "files": ["charge-customers.json"]}
    ]
    assert not production.flows.exists()


def test_a_bad_file_is_400_naming_it(staging_flows, staging, production, ops):
    body = bundle(staging)
    body["files"]["say-hello.json"]["weir_version"] = 7

    response = sync(browser(ops), production, body)

    assert response.status_code == 400
    assert response.json()["error"]["details"]["file"] == "say-hello.json"
    assert not production.flows.exists()


def test_a_file_holding_what_the_database_cannot_store_is_400_naming_it(
    staging_flows, staging, production, ops
):
    """A NUL character (jsonb holds none) was a 500 here, where the flow API
    answers 400 (security.md, round 9's Left)."""
    body = bundle(staging)
    body["files"]["say-hello.json"]["name"] = "Say\u0000hello"

    response = sync(browser(ops), production, body)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["details"]["file"] == "say-hello.json"
    assert "NUL" in error["message"] or "null character" in error["message"]
    assert not production.flows.exists()


def test_a_literal_secret_the_export_redacted_survives_a_sync_of_it(
    staging_flows, production, ops
):
    """A flow holding its workspace's credential value as a literal is
    exported as `[redacted:stripe]`; syncing that file back (another field
    changed) wrote the placeholder over the value, and every sync of it was an
    update. The value stays, only the change lands, and the next sync is
    unchanged (security.md, round 9's Left)."""
    nodes, edges = chain(
        trigger(), code("charge", "const key = 'prod-token-x9'; return {key};")
    )
    flow = FlowFactory(
        created_by=ops, workspace=production, name="Charge", nodes=nodes, edges=edges
    )
    body = bundle(production)
    name = "charge.json"
    assert "[redacted:stripe]" in json.dumps(body["files"][name]["nodes"])
    body["files"][name]["description"] = "Charges the customer."

    changed = sync(browser(ops), production, body)
    again = sync(browser(ops), production, bundle(production))

    assert changed.status_code == 200
    flow.refresh_from_db()
    assert flow.description == "Charges the customer."
    assert "const key = 'prod-token-x9';" in flow.nodes[1]["data"]["code"]
    assert again.json()["counts"]["unchanged"] == 1


def test_a_secret_header_the_export_blanked_survives_a_sync_of_it(production, ops):
    """An http_request node's literal `Authorization` is exported blank;
    syncing that file back wrote the blank over it."""
    nodes, edges = chain(
        trigger(),
        node(
            "call",
            "http_request",
            method="GET",
            url="https://example.com/",
            headers={"Authorization": "Bearer typed-in-9f8e7d6c5b", "Accept": "*/*"},
        ),
    )
    flow = FlowFactory(
        created_by=ops, workspace=production, name="Call", nodes=nodes, edges=edges
    )
    body = bundle(production)
    headers = body["files"]["call.json"]["nodes"][1]["data"]["headers"]
    assert headers == {"Authorization": "", "Accept": "*/*"}
    body["files"]["call.json"]["nodes"][1]["data"]["headers"]["Accept"] = "text/csv"

    changed = sync(browser(ops), production, body)
    again = sync(browser(ops), production, bundle(production))

    assert changed.status_code == 200
    flow.refresh_from_db()
    assert flow.nodes[1]["data"]["headers"] == {
        "Authorization": "Bearer typed-in-9f8e7d6c5b",
        "Accept": "text/csv",
    }
    assert again.json()["counts"]["unchanged"] == 1


def test_a_bundle_without_files_is_400(production, ops):
    response = sync(browser(ops), production, {"prune": True})

    assert response.status_code == 400
    assert "files" in response.json()["error"]["details"]


def test_a_viewer_or_editor_is_403(staging_flows, staging, production):
    for role in ("viewer", "editor"):
        user = UserFactory(username=f"prod_{role}")
        Membership.objects.create(workspace=production, user=user, role=role)
        response = sync(browser(user), production, bundle(staging))
        assert response.status_code == 403, role
    assert not production.flows.exists()


def test_a_non_member_finds_no_workspace(staging_flows, staging, production):
    response = sync(browser(UserFactory()), production, bundle(staging))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_is_401(production):
    response = sync(APIClient(), production, {"files": {}})

    assert response.status_code == 401


def workspace_token(workspace, maker, *scopes) -> str:
    expires = timezone.now() + timedelta(days=30)
    return ApiToken.issue_for_workspace(
        workspace, maker, "CI", list(scopes), expires, role_cap="editor"
    )[1]


def test_a_workspace_token_with_flows_write_syncs(
    staging_flows, staging, production, ops
):
    token = workspace_token(production, ops, "flows:read", "flows:write")

    response = sync(bearer(token), production, bundle(staging))

    assert response.status_code == 200
    assert production.flows.count() == 2


def test_a_workspace_token_without_flows_write_is_403(
    staging_flows, staging, production, ops
):
    token = workspace_token(production, ops, "flows:read")

    response = sync(bearer(token), production, bundle(staging))

    assert response.status_code == 403
    assert not production.flows.exists()
