"""Asynchronous manual runs and the cancel endpoint (`POST /api/runs/:id/cancel`)."""

from __future__ import annotations

import pytest

from flows.engine import background, fair_queue
from flows.models import FlowRun

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("url_suffix", "headers"),
    [("", {"HTTP_PREFER": "respond-async"}), ("?async=true", {})],
)
def test_an_async_run_is_queued_and_answered_202(api, alice_flow, url_suffix, headers):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run{url_suffix}",
        {"name": "Ada"},
        format="json",
        **headers,
    )

    assert response.status_code == 202
    run = FlowRun.objects.get(flow=alice_flow)
    assert response.json() == {"run_id": str(run.id), "status": "queued"}
    assert response["Location"] == f"/api/runs/{run.id}"
    assert (run.status, run.background, run.input) == ("queued", True, {"name": "Ada"})
    assert fair_queue.next_due_run_id() == str(run.id)  # a worker takes it next


def test_without_the_preference_the_run_answers_when_it_is_done(api, alice_flow):
    response = api.post(
        f"/api/flows/{alice_flow.id}/run", {"name": "Ada"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    assert fair_queue.next_due_run_id() is None


def test_a_queued_run_shows_its_state_and_then_its_result(api, alice_flow):
    run_id = api.post(
        f"/api/flows/{alice_flow.id}/run",
        {"name": "Ada"},
        format="json",
        HTTP_PREFER="respond-async",
    ).json()["run_id"]
    assert api.get(f"/api/runs/{run_id}").json()["status"] == "queued"

    background.execute_queued(run_id)

    body = api.get(f"/api/runs/{run_id}").json()
    assert body["status"] == "succeeded"
    assert body["results"]["greet"] == {"greeting": "hi Ada"}


def test_cancelling_a_queued_run_ends_it_cancelled(api, alice_flow):
    run = background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)

    response = api.post(f"/api/runs/{run.id}/cancel")

    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert response.json()["error"]["code"] == "cancelled"
    run.refresh_from_db()
    assert (run.status, run.cancel_requested) == ("cancelled", True)


def test_cancelling_a_running_run_flags_it_for_its_executor(api, alice_flow):
    run = background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)
    background.claim(str(run.id))

    response = api.post(f"/api/runs/{run.id}/cancel")

    assert response.status_code == 200
    assert response.json()["status"] == "running"
    assert response.json()["cancel_requested"] is True


def test_cancelling_a_finished_run_changes_nothing(api, alice_flow):
    run_id = api.post(
        f"/api/flows/{alice_flow.id}/run", {"name": "Ada"}, format="json"
    ).json()["run_id"]

    response = api.post(f"/api/runs/{run_id}/cancel")

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    assert FlowRun.objects.get(pk=run_id).cancel_requested is False


def test_cancel_needs_a_session(anon, alice_flow):
    run = background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)

    response = anon.post(f"/api/runs/{run.id}/cancel")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert FlowRun.objects.get(pk=run.pk).status == "queued"


def test_another_users_run_cannot_be_cancelled(bob_api, alice_flow):
    run = background.enqueue_run(alice_flow, {}, FlowRun.Trigger.MANUAL)

    response = bob_api.post(f"/api/runs/{run.id}/cancel")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert FlowRun.objects.get(pk=run.pk).status == "queued"
