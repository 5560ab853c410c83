"""QUEUED_RUNS_PER_OWNER: one workspace cannot fill the shared background queue."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Membership
from accounts.workspaces.personal import personal_workspace
from flows.engine import background
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.webhooks.conftest import post_webhook

pytestmark = pytest.mark.django_db


@pytest.fixture
def cap_of_two(settings):
    settings.QUEUED_RUNS_PER_OWNER = 2


def queue_async(api, flow):
    return api.post(f"/api/flows/{flow.id}/run?async=true", {}, format="json")


def test_an_async_run_past_the_owners_cap_is_429_with_retry_after(
    api, alice_flow, cap_of_two
):
    assert [queue_async(api, alice_flow).status_code for _ in range(2)] == [202, 202]

    response = queue_async(api, alice_flow)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "2 runs of this workspace are queued" in response.json()["error"]["message"]
    assert int(response["Retry-After"]) >= 1
    assert FlowRun.objects.filter(flow=alice_flow).count() == 2


def test_another_owner_still_queues_and_a_run_taken_frees_room(
    api, bob_api, alice_flow, bob_flow, cap_of_two
):
    first, _ = (queue_async(api, alice_flow).json()["run_id"] for _ in range(2))

    assert queue_async(bob_api, bob_flow).status_code == 202
    background.claim(first)  # running, no longer queued
    assert queue_async(api, alice_flow).status_code == 202


def test_an_async_webhook_past_the_owners_cap_is_429(client, alice, cap_of_two):
    flow = FlowFactory(created_by=alice, webhook_response_mode="immediately")
    for _ in range(2):
        assert post_webhook(client, flow, b"{}").status_code == 202

    response = post_webhook(client, flow, b"{}")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "Retry-After" in response


def test_a_repeated_delivery_is_answered_though_the_queue_is_full(
    client, alice, cap_of_two
):
    flow = FlowFactory(created_by=alice, webhook_response_mode="immediately")
    first = post_webhook(client, flow, b"{}", HTTP_IDEMPOTENCY_KEY="order-1")
    post_webhook(client, flow, b"{}")

    again = post_webhook(client, flow, b"{}", HTTP_IDEMPOTENCY_KEY="order-1")

    assert again.status_code == 409  # its run still queued: row 8, not 429
    assert FlowRun.objects.filter(flow=flow).count() == 2
    assert first.status_code == 202


def test_schedules_and_called_runs_are_not_refused_but_count(
    api, alice_flow, cap_of_two
):
    for _ in range(2):
        background.enqueue_run(alice_flow, {}, FlowRun.Trigger.SCHEDULE)

    assert queue_async(api, alice_flow).status_code == 429


def test_teammates_share_their_workspaces_cap(api, alice, bob, cap_of_two):
    """The cap is the workspace's: bob's flow in alice's workspace waits in
    the same place as hers, though bob made it."""
    team = personal_workspace(alice)
    Membership.objects.create(workspace=team, user=bob, role="editor")
    hers = FlowFactory(created_by=alice)
    his = FlowFactory(created_by=bob, workspace=team)
    assert [queue_async(api, hers).status_code for _ in range(2)] == [202, 202]

    response = queue_async(api, his)

    assert response.status_code == 429
    assert FlowRun.objects.filter(flow=his).count() == 0


def test_the_cap_counts_queued_runs_only_up_to_the_limit(api, alice_flow, cap_of_two):
    """Past the cap (schedules and called flows queue without asking), the
    refusal still comes, and its count stops at the limit: what a request
    pays does not grow with the queue."""
    for _ in range(5):
        background.enqueue_run(alice_flow, {}, FlowRun.Trigger.SCHEDULE)
    with CaptureQueriesContext(connection) as queries:
        response = queue_async(api, alice_flow)

    assert response.status_code == 429
    assert "2 runs of this workspace are queued" in response.json()["error"]["message"]
    counts = [q["sql"] for q in queries.captured_queries if "COUNT(" in q["sql"]]
    assert counts and all("LIMIT 2" in sql for sql in counts)
