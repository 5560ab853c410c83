"""`POST /api/workspaces/:id/promote`: an admin of both workspaces copies
chosen flows from staging to production, seeing the diff first."""

from __future__ import annotations

import json

from rest_framework.test import APIClient

from accounts.audit.models import AuditEvent
from accounts.workspaces.models import Membership, Workspace
from flows.forms.password import matches
from flows.history.models import FlowVersion
from flows.models import Credential, Flow
from tests.accounts.test_bearer import bearer
from tests.factories import FlowFactory, UserFactory
from tests.flows.forms.test_password import form_graph as password_form
from tests.flows.git.test_api import browser, workspace_token
from tests.flows.graphs import chain, node, trigger


def promote(client, source, target, flows, **options):
    body = {"to": str(target.id), "flows": flows, **options}
    return client.post(f"/api/workspaces/{source.id}/promote", body, format="json")


def keys(flows) -> list[str]:
    return [str(flow.id) for flow in flows]


def test_a_dry_run_shows_each_flows_diff_and_changes_nothing(
    staging_flows, staging, production, ops
):
    answer = promote(
        browser(ops), staging, production, keys(staging_flows), dry_run=True
    ).json()

    assert answer["applied"] is False
    assert answer["counts"]["create"] == 2
    diffs = {step["key"]: step["diff"] for step in answer["steps"]}
    assert '+  "name": "Say hello",' in diffs["say-hello"]
    assert diffs["charge-customers"].startswith("--- /dev/null\n")
    assert not production.flows.exists()
    assert not AuditEvent.objects.filter(action="flow.promoted").exists()


def test_it_promotes_mapping_credentials_by_name_with_one_event_per_flow(
    staging_flows, staging, production, ops
):
    response = promote(browser(ops), staging, production, keys(staging_flows))

    assert response.status_code == 200
    assert response.json()["applied"] is True
    charge = production.flows.get(key="charge-customers")
    production_stripe = Credential.objects.get(workspace=production, name="stripe")
    call = next(n for n in charge.nodes if n["id"] == "call")
    assert call["data"]["credential_id"] == str(production_stripe.pk)
    version = charge.versions.get()
    assert version.source == "promote"
    assert version.promoted_from == {
        "workspace": str(staging.pk),
        "workspace_name": "Staging",
        "flow": str(staging_flows[0].pk),
        "version": staging_flows[0].version,
    }
    events = AuditEvent.objects.filter(workspace=production, action="flow.promoted")
    assert sorted(e.target_label for e in events) == ["Charge customers", "Say hello"]
    assert not AuditEvent.objects.filter(
        workspace=production, action="flow.created"
    ).exists()


def test_a_second_promotion_updates_only_the_edited_flow(
    staging_flows, staging, production, ops
):
    promote(browser(ops), staging, production, keys(staging_flows))
    hello = staging_flows[1]
    hello.refresh_from_db()  # its key, given by the first promotion
    hello.name = "Say hi"
    hello.save()

    answer = promote(browser(ops), staging, production, ["say-hello"]).json()
    again = promote(browser(ops), staging, production, keys(staging_flows)).json()

    assert answer["steps"][0]["action"] == "update"
    assert '-  "name": "Say hello",' in answer["steps"][0]["diff"]
    assert '+  "name": "Say hi",' in answer["steps"][0]["diff"]
    assert production.flows.get(key="say-hello").version == 2
    assert again["counts"]["unchanged"] == 2
    assert AuditEvent.objects.filter(action="flow.promoted").count() == 3


def test_a_missing_credential_is_409_listing_it_and_nothing_moves(
    staging_flows, staging, production, ops
):
    production.credentials.all().delete()

    response = promote(browser(ops), staging, production, keys(staging_flows))

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "missing_credentials"
    assert error["details"]["missing_credentials"] == [
        {"name": "stripe", "kind": "bearer", "flows": ["charge-customers"]}
    ]
    assert not production.flows.exists()


def test_an_unknown_flow_is_400_naming_it(staging_flows, staging, production, ops):
    other = FlowFactory(created_by=ops, workspace=production, name="Theirs")

    response = promote(browser(ops), staging, production, ["say-hello", str(other.id)])

    assert response.status_code == 400
    assert response.json()["error"]["details"]["flows"] == [str(other.id)]
    assert production.flows.count() == 1


def test_no_flows_too_many_or_no_target_is_400(staging_flows, staging, production, ops):
    empty = promote(browser(ops), staging, production, [])
    too_many = promote(browser(ops), staging, production, ["say-hello"] * 201)
    no_target = browser(ops).post(
        f"/api/workspaces/{staging.id}/promote", {"flows": ["say-hello"]}, format="json"
    )

    for response in (empty, too_many):
        assert response.status_code == 400
        assert "flows" in response.json()["error"]["details"]
    assert no_target.status_code == 400
    assert "to" in no_target.json()["error"]["details"]


def test_the_same_workspace_or_a_stranger_one_is_400_on_to(
    staging_flows, staging, production, ops
):
    elsewhere = Workspace.objects.create(name="Elsewhere", slug="elsewhere")

    itself = promote(browser(ops), staging, staging, ["say-hello"])
    stranger = promote(browser(ops), staging, elsewhere, ["say-hello"])

    for response in (itself, stranger):
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "validation_error"
        assert "to" in response.json()["error"]["details"]
    assert not elsewhere.flows.exists()


def test_a_flow_calling_another_flow_is_400_naming_it(staging, production, ops):
    callee = FlowFactory(created_by=ops, workspace=staging, name="Callee")
    nodes, edges = chain(trigger(), node("call", "call_flow", flow_id=str(callee.pk)))
    FlowFactory(
        created_by=ops, workspace=staging, name="Caller", nodes=nodes, edges=edges
    )

    response = promote(browser(ops), staging, production, ["caller"])

    assert response.status_code == 400
    assert response.json()["error"]["details"]["flow"] == "caller"
    assert not production.flows.exists()


def test_an_editor_of_either_workspace_is_403(staging_flows, staging, production):
    for source_role, target_role in (("editor", "admin"), ("admin", "editor")):
        user = UserFactory(username=f"{source_role}_{target_role}")
        Membership.objects.create(workspace=staging, user=user, role=source_role)
        Membership.objects.create(workspace=production, user=user, role=target_role)

        response = promote(browser(user), staging, production, ["say-hello"])

        assert response.status_code == 403, (source_role, target_role)
        assert response.json()["error"]["code"] == "permission_denied"
    assert not production.flows.exists()


def test_a_non_member_of_the_source_finds_no_workspace(
    staging_flows, staging, production
):
    user = UserFactory()
    Membership.objects.create(workspace=production, user=user, role="admin")

    response = promote(browser(user), staging, production, ["say-hello"])

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_is_401_and_a_workspace_token_403(
    staging_flows, staging, production, ops
):
    token = workspace_token(staging, ops, "flows:read", "flows:write")

    anonymous = promote(APIClient(), staging, production, ["say-hello"])
    with_token = promote(bearer(token), staging, production, ["say-hello"])

    assert anonymous.status_code == 401
    assert with_token.status_code == 403
    assert not FlowVersion.objects.filter(flow__workspace=production).exists()


def test_a_promotion_shows_no_password_and_keeps_the_targets(staging, production, ops):
    client = browser(ops)
    graph = {**password_form("staging-pass"), "workspace": str(staging.id)}
    created = client.post("/api/flows", graph, format="json")
    assert created.status_code == 201
    source = Flow.objects.get(pk=created.json()["id"])
    dry = promote(client, staging, production, [str(source.id)], dry_run=True).json()
    assert "staging-pass" not in json.dumps(dry)
    assert source.form_password not in json.dumps(dry)
    promote(client, staging, production, [str(source.id)])
    target = production.flows.get()
    assert not target.form_password  # closed until production sets its own
    fields = password_form("production-pass")
    fields["nodes"][0]["data"]["slug"] = ""  # staging holds /f/payroll
    set_it = client.patch(f"/api/flows/{target.id}", fields, format="json")
    assert set_it.status_code == 200
    source.nodes[0]["data"]["title"] = "Payroll (v2)"
    source.save()
    again = promote(client, staging, production, [str(source.id)], dry_run=True)
    shown = json.dumps(again.json())
    assert "production-pass" not in shown and "staging-pass" not in shown
    target.refresh_from_db()
    assert target.form_password not in shown
    promote(client, staging, production, [str(source.id)])
    target.refresh_from_db()
    assert target.nodes[0]["data"]["title"] == "Payroll (v2)"
    assert matches(target, "production-pass")
    assert not matches(target, "staging-pass")
