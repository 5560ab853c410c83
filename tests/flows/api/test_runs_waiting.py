"""Waiting runs in the run API: their wait and resume link, for the owner."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Membership, Workspace
from accounts.tokens.models import ApiToken
from flows.engine import run_flow, waits
from flows.models import Flow, FlowRun
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import chain, node, trigger

pytestmark = pytest.mark.django_db


def waiting(owner, **data):
    nodes, edges = chain(trigger(), node("approve", "wait", **data))
    flow = FlowFactory(created_by=owner, nodes=nodes, edges=edges)
    return run_flow(flow, {}, FlowRun.Trigger.MANUAL)


def test_a_waiting_run_shows_its_resume_link_to_its_owner(api, alice, settings):
    settings.BASE_URL = "https://weir.example"
    run = waiting(alice, mode="callback", timeout_s=60)

    body = api.get(f"/api/runs/{run.pk}").json()

    assert body["status"] == "waiting"
    assert body["wait"] == {
        "node_id": "approve",
        "mode": "callback",
        "until": FlowRun.objects.get(pk=run.pk).wait_state["wake_at"],
        "resume_url": "https://weir.example" + waits.resume_path(run.pk, "approve"),
    }


def test_the_runs_list_shows_the_wait_too(api, alice):
    run = waiting(alice, mode="callback")

    [item] = api.get("/api/runs?status=waiting").json()["results"]

    assert item["id"] == str(run.pk)
    assert item["wait"]["resume_url"].endswith(waits.resume_path(run.pk, "approve"))


def test_a_timed_wait_has_no_resume_link(api, alice):
    run = waiting(alice, mode="duration", seconds=60)

    wait = api.get(f"/api/runs/{run.pk}").json()["wait"]

    assert wait["mode"] == "duration"
    assert wait["resume_url"] is None


def test_a_finished_run_has_no_wait(api, alice_flow):
    run = run_flow(alice_flow, {"name": "Ada"}, FlowRun.Trigger.MANUAL)

    assert api.get(f"/api/runs/{run.pk}").json()["wait"] is None


def test_another_users_waiting_run_is_not_found(bob_api, alice):
    run = waiting(alice, mode="callback")

    response = bob_api.get(f"/api/runs/{run.pk}")

    assert response.status_code == 404
    assert "resume" not in response.content.decode()


def test_a_waiting_run_is_cancelled_at_once(api, alice):
    run = waiting(alice, mode="callback")

    body = api.post(f"/api/runs/{run.pk}/cancel").json()

    assert body["status"] == "cancelled"
    assert body["wait"] is None
    assert FlowRun.objects.get(pk=run.pk).lease_expires_at is None


def test_a_token_that_cannot_start_runs_never_sees_a_resume_link(alice):
    run = waiting(alice, mode="callback")
    later = timezone.now() + timedelta(days=1)
    _, read_only = ApiToken.issue(alice, "ro", ["flows:read", "runs:read"], later)
    _, runner = ApiToken.issue(alice, "run", ["flows:read", "flows:run"], later)

    def waits_seen_with(value):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
        return [
            client.get("/api/runs?status=waiting").json()["results"][0]["wait"],
            client.get(f"/api/flows/{run.flow_id}/runs").json()["results"][0]["wait"],
        ]

    assert [w["resume_url"] for w in waits_seen_with(read_only)] == [None, None]
    link = waits.resume_path(run.pk, "approve")
    assert all(w["resume_url"].endswith(link) for w in waits_seen_with(runner))


def test_a_viewer_never_sees_a_resume_link_a_runner_does(alice, bob, bob_api):
    run = waiting(alice, mode="callback")
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    membership = Membership.objects.create(workspace=team, user=bob, role="viewer")
    Flow.objects.filter(pk=run.flow_id).update(workspace=team)

    def waits_seen():
        return [
            bob_api.get("/api/runs?status=waiting").json()["results"][0]["wait"],
            bob_api.get(f"/api/flows/{run.flow_id}/runs").json()["results"][0]["wait"],
            bob_api.get(f"/api/runs/{run.pk}").json()["wait"],
        ]

    assert [wait["resume_url"] for wait in waits_seen()] == [None, None, None]
    membership.role = "runner"
    membership.save()
    link = waits.resume_path(run.pk, "approve")
    assert all(wait["resume_url"].endswith(link) for wait in waits_seen())


# Session, (flow and its role check,) the page, the count, and one role check
# for the resume links: the same number for 1 waiting run as for 20, but for
# the count, which a first page that is not full (1 of 20) needs not.
@pytest.mark.parametrize("count", [1, 20])
@pytest.mark.parametrize(
    ("path", "queries"),
    [("/api/flows/{flow}/runs", 7), ("/api/runs?status=waiting", 5)],
)
def test_run_lists_check_the_resume_right_once_not_per_waiting_run(
    api, alice_flow, count, path, queries, django_assert_num_queries
):
    wake_at = (timezone.now() + timedelta(hours=1)).isoformat()
    state = {"node_id": "approve", "mode": "callback", "wake_at": wake_at}
    for _ in range(count):
        FlowRunFactory(flow=alice_flow, status="waiting", wait_state=state)

    with django_assert_num_queries(queries if count == 20 else queries - 1):
        response = api.get(path.format(flow=alice_flow.pk))

    results = response.json()["results"]
    assert len(results) == count
    assert all(item["wait"]["resume_url"] for item in results)
