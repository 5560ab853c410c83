"""`POST /api/flows/:id/move`: admin in the source, editor in the target,
credentials remapped by name and kind or named when missing."""

from __future__ import annotations

import pytest

from accounts.audit.actor import Actor
from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from flows.history.save import save_flow
from flows.models import Flow
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def ops(members):
    """A second workspace where the team's admin is an editor."""
    ops = Workspace.objects.create(name="Ops", slug="ops")
    Membership.objects.create(workspace=ops, user=members["admin"], role="editor")
    return ops


def flow_using(credential, **fields):
    nodes, edges = chain(
        trigger(),
        node(
            "h",
            "http_request",
            url="https://example.com",
            credential_id=str(credential.pk),
        ),
    )
    return FlowFactory(nodes=nodes, edges=edges, **fields)


def test_a_move_remaps_the_credential_by_name_and_kind(as_member, members, team, ops):
    mine = make_credential(members["owner"], name="api", workspace=team)
    theirs = make_credential(members["admin"], name="api", workspace=ops)
    flow = flow_using(mine, created_by=members["owner"], workspace=team)

    response = as_member("admin").post(
        f"/api/flows/{flow.id}/move", {"workspace": str(ops.id)}, format="json"
    )

    assert response.status_code == 200, response.content
    flow = Flow.objects.get(pk=flow.pk)
    assert flow.workspace == ops
    assert flow.nodes[1]["data"]["credential_id"] == str(theirs.pk)
    moved = AuditEvent.objects.filter(action="flow.moved")
    assert set(moved.values_list("workspace_id", flat=True)) == {team.pk, ops.pk}


def test_a_move_names_the_credentials_the_target_lacks(as_member, members, team, ops):
    mine = make_credential(members["owner"], name="api", workspace=team)
    flow = flow_using(mine, created_by=members["owner"], workspace=team)

    response = as_member("admin").post(
        f"/api/flows/{flow.id}/move", {"workspace": str(ops.id)}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["details"]["credentials"] == [
        {"name": "api", "kind": "bearer"}
    ]
    assert Flow.objects.get(pk=flow.pk).workspace == team


def test_an_editor_may_not_move_a_flow_out(as_member, members, team, team_flow, ops):
    Membership.objects.create(workspace=ops, user=members["editor"], role="editor")

    response = as_member("editor").post(
        f"/api/flows/{team_flow.id}/move", {"workspace": str(ops.id)}, format="json"
    )

    assert response.status_code == 403
    assert Flow.objects.get(pk=team_flow.pk).workspace == team


def test_a_move_needs_the_editor_right_in_the_target(
    as_member, members, team_flow, ops
):
    Membership.objects.filter(workspace=ops, user=members["admin"]).update(
        role="viewer"
    )

    response = as_member("admin").post(
        f"/api/flows/{team_flow.id}/move", {"workspace": str(ops.id)}, format="json"
    )

    assert response.status_code == 403


def test_a_move_cannot_carry_schedules_past_the_targets_cap(api, alice, settings):
    """The schedule cap counts per workspace: moving scheduled flows in one by
    one (each made in the personal workspace, which then has room again) must
    not fill a workspace past it."""
    settings.SCHEDULED_FLOWS_PER_OWNER = 1
    team = Workspace.objects.create(name="Busy", slug="busy")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    tick = node("tick", "schedule", cron="*/5 * * * *", timezone="UTC", enabled=True)
    nodes, edges = chain(tick, node("work", "code", code="return {};"))
    FlowFactory(created_by=alice, workspace=team, nodes=nodes, edges=edges)
    mine = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = api.post(
        f"/api/flows/{mine.id}/move", {"workspace": str(team.id)}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["error"]["details"]["nodes"][0]["field"] == "data.enabled"
    assert Flow.objects.filter(workspace=team).scheduled().count() == 1
    assert Flow.objects.get(pk=mine.pk).workspace != team


def test_the_targets_members_read_no_old_credential_value_in_old_versions(
    as_member, members, team, ops, bob
):
    """R23: version 1 held the team's key as a literal; after the move, a
    member of ops only (bob) must not read it in the history or a diff."""
    key = make_credential(members["owner"], name="api", workspace=team)
    make_credential(
        members["admin"], name="api", workspace=ops, secrets={"token": "ops-tok-0ther"}
    )
    value = key.secrets()["token"]
    flow = flow_using(key, created_by=members["owner"], workspace=team)
    nodes = [dict(n) for n in flow.nodes]
    nodes[1] = {**nodes[1], "data": {**nodes[1]["data"], "headers": {"X-K": value}}}
    save_flow(flow, {"nodes": nodes}, actor=Actor.system("test"), source="edit")
    nodes[1] = {**nodes[1], "data": {**nodes[1]["data"], "headers": {}}}
    save_flow(flow, {"nodes": nodes}, actor=Actor.system("test"), source="edit")
    moved = as_member("admin").post(
        f"/api/flows/{flow.id}/move", {"workspace": str(ops.id)}, format="json"
    )
    assert moved.status_code == 200, moved.content
    Membership.objects.create(workspace=ops, user=bob, role="viewer")

    version = as_member(None).get(f"/api/flows/{flow.id}/versions/2")
    diff = as_member(None).get(f"/api/flows/{flow.id}/versions/3/diff")

    assert version.status_code == 200 and diff.status_code == 200
    assert value not in version.content.decode()
    assert value not in diff.content.decode()
    assert version.json()["nodes"][1]["data"]["headers"] == {"X-K": "[redacted:api]"}
