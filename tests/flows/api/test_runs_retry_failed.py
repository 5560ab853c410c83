"""`POST /api/runs/retry-failed`: the Runs page's "Retry all failed"."""

from __future__ import annotations

import pytest

from accounts.audit.models import AuditEvent
from accounts.models import Membership
from flows.api import run_again
from flows.engine import background
from flows.models import FlowRun
from tests.factories import FlowFactory, FlowRunFactory

pytestmark = pytest.mark.django_db


def failed(flow, **fields) -> FlowRun:
    return FlowRunFactory(flow=flow, status="failed", input={"name": "Ada"}, **fields)


def test_it_queues_a_retry_of_each_failed_run_the_filters_match(api, alice):
    chosen = FlowFactory(created_by=alice, name="Chosen")
    other = FlowFactory(created_by=alice, name="Other")
    first, second = failed(chosen), failed(chosen, trigger="webhook")
    FlowRunFactory(flow=chosen, status="succeeded")
    failed(other)

    response = api.post(f"/api/runs/retry-failed?flow={chosen.id}")

    assert response.status_code == 202
    body = response.json()
    assert (body["queued"], body["left"]) == (2, 0)
    retries = FlowRun.objects.filter(retry_of__isnull=False)
    assert {run.retry_of_id for run in retries} == {first.id, second.id}
    assert sorted(body["run_ids"]) == sorted(str(run.id) for run in retries)
    assert {run.status for run in retries} == {"queued"}
    assert AuditEvent.objects.filter(action="run.retried").count() == 2
    assert background.execute_queued(body["run_ids"][0]) == "succeeded"


def test_it_queues_at_most_the_cap_and_says_how_many_are_left(
    api, alice_flow, monkeypatch
):
    monkeypatch.setattr(run_again, "RETRY_FAILED_CAP", 2)
    for _ in range(3):
        failed(alice_flow)

    first = api.post("/api/runs/retry-failed?status=failed").json()
    second = api.post("/api/runs/retry-failed?status=failed").json()
    third = api.post("/api/runs/retry-failed?status=failed").json()

    assert (first["queued"], first["left"]) == (2, 1)
    assert (second["queued"], second["left"]) == (1, 0)  # not the same runs again
    assert (third["queued"], third["left"]) == (0, 0)


def test_a_full_queue_leaves_the_rest_for_later(api, alice_flow, settings):
    settings.QUEUED_RUNS_PER_OWNER = 1
    failed(alice_flow), failed(alice_flow)

    response = api.post("/api/runs/retry-failed")

    assert response.status_code == 202
    assert (response.json()["queued"], response.json()["left"]) == (1, 1)


def test_a_full_queue_before_the_first_is_429(api, alice_flow, settings):
    settings.QUEUED_RUNS_PER_OWNER = 1
    background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)
    failed(alice_flow)

    response = api.post("/api/runs/retry-failed")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"


def test_a_bad_filter_is_400_naming_it(api, alice_flow):
    response = api.post("/api/runs/retry-failed?since=soon")

    assert response.status_code == 400
    assert set(response.json()["error"]["details"]) == {"since"}


def test_other_users_failed_runs_are_left_alone(api, alice, bob_flow):
    failed(bob_flow)

    response = api.post("/api/runs/retry-failed")

    assert response.json() == {"queued": 0, "left": 0, "run_ids": []}
    assert FlowRun.objects.count() == 1


def test_a_viewer_of_every_workspace_gets_403(api, alice, bob, bob_flow):
    Membership.objects.filter(user=alice).update(role="viewer")
    Membership.objects.create(workspace=bob_flow.workspace, user=alice, role="viewer")
    failed(bob_flow)

    response = api.post("/api/runs/retry-failed")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert FlowRun.objects.count() == 1


def test_a_viewers_workspace_is_skipped_where_they_run_others(api, alice, bob_flow):
    alice_run = failed(FlowFactory(created_by=alice))
    Membership.objects.create(workspace=bob_flow.workspace, user=alice, role="viewer")
    failed(bob_flow)

    body = api.post("/api/runs/retry-failed").json()

    assert body["queued"] == 1
    assert FlowRun.objects.get(pk=body["run_ids"][0]).retry_of == alice_run


def test_anonymous_gets_401(anon):
    assert anon.post("/api/runs/retry-failed").status_code == 401
