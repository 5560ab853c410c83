"""POST /api/flows/:id/run counts against the admission caps like a webhook."""

from __future__ import annotations

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def run(api, flow):
    return api.post(f"/api/flows/{flow.id}/run", {"name": "Ada"}, format="json")


def test_a_manual_run_on_a_full_process_is_503_and_creates_no_run(
    api, alice_flow, hold_slots
):
    for owner in (1, 2, 3):
        hold_slots(owner)

    response = run(api, alice_flow)

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert response["Retry-After"] == "2"
    assert not FlowRun.objects.filter(flow=alice_flow).exists()


def test_a_manual_run_of_a_flow_at_its_cap_is_429_and_creates_no_run(
    api, alice_flow, hold_slots
):
    hold_slots(alice_flow.created_by_id, alice_flow.pk)

    response = run(api, alice_flow)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "Retry-After" in response
    assert not FlowRun.objects.filter(flow=alice_flow).exists()


def test_a_manual_run_within_the_caps_runs(api, alice_flow, hold_slots):
    hold_slots(alice_flow.created_by_id)

    response = run(api, alice_flow)

    assert response.status_code == 200
    assert FlowRun.objects.get(flow=alice_flow).status == FlowRun.Status.SUCCEEDED


def test_a_save_counts_against_the_owners_admission_cap(api, alice_flow, hold_slots):
    hold_slots(alice_flow.created_by_id)
    hold_slots(alice_flow.created_by_id)

    response = api.patch(
        f"/api/flows/{alice_flow.id}",
        {"name": "New", "nodes": alice_flow.nodes},
        format="json",
    )

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "Retry-After" in response.headers
    alice_flow.refresh_from_db()
    assert alice_flow.name != "New"


def test_creating_a_flow_counts_against_the_admission_cap(api, alice, hold_slots):
    hold_slots(alice.pk)
    hold_slots(alice.pk)

    nodes, edges = chain(trigger(), code("work", "return 1;"))

    response = api.post(
        "/api/flows", {"name": "New", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 429
    assert not alice.flows.filter(name="New").exists()


def test_a_rename_compiles_nothing_and_is_not_counted(api, alice_flow, hold_slots):
    hold_slots(alice_flow.created_by_id)
    hold_slots(alice_flow.created_by_id)

    response = api.patch(f"/api/flows/{alice_flow.id}", {"name": "New"}, format="json")

    assert response.status_code == 200


def test_two_members_of_one_workspace_share_its_cap_two_workspaces_do_not(
    alice, bob, hold_slots
):
    from rest_framework.test import APIClient

    from accounts.workspaces.models import Membership, Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    for member in (alice, bob):
        Membership.objects.create(workspace=team, user=member, role="runner")
    alices_team_flow = FlowFactory(created_by=alice, workspace=team)
    bobs_team_flow = FlowFactory(created_by=bob, workspace=team)
    bobs_own_flow = FlowFactory(created_by=bob)
    as_alice, as_bob = APIClient(), APIClient()
    as_alice.force_login(alice)
    as_bob.force_login(bob)
    # Alice's two slow runs of a team flow hold the team's two slots.
    hold_slots(workspace_id=alices_team_flow.workspace_id)
    hold_slots(workspace_id=alices_team_flow.workspace_id)

    shared = run(as_bob, bobs_team_flow)
    apart = run(as_bob, bobs_own_flow)

    assert shared.status_code == 429
    assert "This workspace" in shared.json()["error"]["message"]
    assert apart.status_code == 200
    assert run(as_alice, alices_team_flow).status_code == 429
