"""`/api/workspaces/:id/variables`: who may read and write, the rules for
names and values, each error row of docs/api.md, and the audit trail."""

from __future__ import annotations

import pytest

from accounts.audit.models import AuditEvent
from accounts.models import Variable
from accounts.workspaces.variables import PER_WORKSPACE, VALUE_CHARS

pytestmark = pytest.mark.django_db


def url(workspace, variable=None):
    base = f"/api/workspaces/{workspace.id}/variables"
    return f"{base}/{variable.id}" if variable else base


@pytest.fixture
def region(team):
    return Variable.objects.create(workspace=team, name="REGION", value="eu-west")


def test_every_member_lists_the_variables_by_name(as_member, team, region):
    Variable.objects.create(workspace=team, name="API_BASE", value="https://x.test")

    body = as_member("viewer").get(url(team)).json()

    assert [(v["name"], v["value"]) for v in body] == [
        ("API_BASE", "https://x.test"),
        ("REGION", "eu-west"),
    ]


def test_an_editor_creates_a_variable_and_the_audit_log_says_so(as_member, team):
    response = as_member("editor").post(
        url(team), {"name": "REGION", "value": "eu-west"}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["name"] == "REGION"
    event = AuditEvent.objects.get(action="variable.created")
    assert (event.workspace_id, event.target_label) == (team.id, "REGION")


def test_an_editor_renames_and_changes_a_variable(as_member, team, region):
    response = as_member("editor").patch(
        url(team, region), {"name": "AREA", "value": "us-east"}, format="json"
    )

    assert response.status_code == 200
    region.refresh_from_db()
    assert (region.name, region.value) == ("AREA", "us-east")
    event = AuditEvent.objects.get(action="variable.updated")
    assert event.changes == {
        "name": {"from": "REGION", "to": "AREA"},
        "value": {"from": "eu-west", "to": "us-east"},
    }


def test_an_editor_deletes_a_variable(as_member, team, region):
    response = as_member("editor").delete(url(team, region))

    assert response.json() == {"success": True}
    assert not Variable.objects.exists()
    assert AuditEvent.objects.filter(action="variable.deleted").count() == 1


@pytest.mark.parametrize("role", ["viewer", "runner"])
def test_viewers_and_runners_may_not_write(as_member, team, region, role):
    client = as_member(role)
    responses = [
        client.post(url(team), {"name": "X", "value": "1"}, format="json"),
        client.patch(url(team, region), {"value": "2"}, format="json"),
        client.delete(url(team, region)),
    ]

    assert [r.status_code for r in responses] == [403, 403, 403]
    assert responses[0].json()["error"]["code"] == "permission_denied"
    region.refresh_from_db()
    assert region.value == "eu-west"


def test_a_non_member_finds_no_workspace(as_member, team, region):
    response = as_member(None).get(url(team))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_signed_out_is_401(client, team):
    response = client.get(url(team))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


@pytest.mark.parametrize("name", ["1ST", "has-dash", "with space", "é", "", "A" * 65])
def test_a_name_that_is_no_identifier_is_a_400_naming_it(as_member, team, name):
    response = as_member("editor").post(
        url(team), {"name": name, "value": "x"}, format="json"
    )

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "name" in error["details"]


def test_a_value_over_the_cap_is_a_400_naming_it(as_member, team):
    response = as_member("editor").post(
        url(team), {"name": "BIG", "value": "x" * (VALUE_CHARS + 1)}, format="json"
    )

    assert response.status_code == 400
    assert "value" in response.json()["error"]["details"]


def test_a_value_must_be_text(as_member, team):
    response = as_member("editor").post(
        url(team), {"name": "N", "value": {"a": 1}}, format="json"
    )

    assert response.status_code == 400
    assert "value" in response.json()["error"]["details"]


def test_a_name_taken_in_the_workspace_is_a_409(as_member, team, region):
    response = as_member("editor").post(
        url(team), {"name": "REGION", "value": "x"}, format="json"
    )

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"
    assert "REGION" in response.json()["error"]["message"]


def test_renaming_onto_a_taken_name_is_a_409(as_member, team, region):
    other = Variable.objects.create(workspace=team, name="OTHER", value="")

    response = as_member("editor").patch(
        url(team, other), {"name": "REGION"}, format="json"
    )

    assert response.status_code == 409
    other.refresh_from_db()
    assert other.name == "OTHER"


def test_a_full_workspace_refuses_another_variable(as_member, team):
    Variable.objects.bulk_create(
        Variable(workspace=team, name=f"V{n}", value="") for n in range(PER_WORKSPACE)
    )

    response = as_member("editor").post(
        url(team), {"name": "ONE_MORE", "value": ""}, format="json"
    )

    assert response.status_code == 409


def test_a_body_that_is_not_json_is_a_415(as_member, team):
    response = as_member("editor").post(
        url(team), "name=X", content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 415


def test_a_token_reads_with_flows_read_but_writes_only_with_flows_write(alice):
    from datetime import timedelta

    from django.utils import timezone
    from rest_framework.test import APIClient

    from accounts.tokens.models import ApiToken

    workspace = alice.personal_workspace
    expires = timezone.now() + timedelta(days=1)
    clients = {}
    for scope in ("flows:read", "flows:write"):
        _, value = ApiToken.issue(alice, scope, [scope], expires)
        clients[scope] = APIClient()
        clients[scope].credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    body = {"name": "TZ", "value": "UTC"}

    listed = clients["flows:read"].get(url(workspace))
    refused = clients["flows:read"].post(url(workspace), body, format="json")
    created = clients["flows:write"].post(url(workspace), body, format="json")

    assert listed.status_code == 200
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "permission_denied"
    assert created.status_code == 201
