"""The webhook under admission control: refusals are fast, enveloped, and run nothing.

Caps and slots themselves: tests/core/http/test_admission.py; a real
gunicorn flooded with slow calls: tests/core/http/test_admission_gunicorn.py.
"""

from __future__ import annotations

import time

import pytest

from tests.factories import FlowFactory
from tests.webhooks.conftest import post_webhook, webhook_runs


def send(client, flow, **meta):
    return post_webhook(client, flow, b'{"name": "Ada"}', **meta)


def test_a_full_process_answers_503_with_retry_after_and_runs_nothing(
    client, hook_flow, bob, hold_slots, settings
):
    settings.ADMISSION_RETRY_AFTER_SECONDS = 3
    for owner in (1, 2, 3):
        hold_slots(owner)

    answer = send(client, hook_flow)

    assert answer.status_code == 503
    assert answer["Retry-After"] == "3"
    assert answer.json()["error"]["code"] == "unavailable"
    assert webhook_runs(hook_flow) == 0


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_flow_at_its_cap_answers_429_and_runs_nothing(client, hook_flow, hold_slots):
    hold_slots(hook_flow.created_by_id, hook_flow.pk)

    seconds = []
    for _ in range(3):  # the fastest of three: a busy machine's hiccups aside
        started = time.monotonic()
        answer = send(client, hook_flow)
        seconds.append(time.monotonic() - started)

    assert min(seconds) < 0.1, seconds
    assert answer.status_code == 429
    assert answer["Retry-After"] == "2"
    assert answer.json()["error"]["code"] == "throttled"
    assert "This flow" in answer.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


def test_a_workspace_at_the_cap_answers_429_for_all_its_flows(
    client, alice, hold_slots
):
    flow = FlowFactory(created_by=alice)
    hold_slots(workspace_id=flow.workspace_id)
    hold_slots(workspace_id=flow.workspace_id)

    answer = send(client, flow)

    assert answer.status_code == 429
    assert "This workspace" in answer.json()["error"]["message"]
    assert webhook_runs(flow) == 0


def test_another_workspaces_flow_still_runs_while_one_workspace_is_capped(
    client, alice, bob, hold_slots
):
    hold_slots(workspace_id=alice.personal_workspace.pk)
    hold_slots(workspace_id=alice.personal_workspace.pk)

    answer = send(client, FlowFactory(created_by=bob))

    assert answer.status_code == 200


def test_a_request_that_waited_in_the_queue_too_long_is_503_not_run_late(
    client, hook_flow, settings
):
    settings.REQUEST_QUEUE_TIMEOUT_SECONDS = 5

    answer = send(client, hook_flow, HTTP_X_REQUEST_START=f"t={time.time() - 8:.3f}")

    assert answer.status_code == 503
    assert answer.json()["error"]["code"] == "unavailable"
    assert "waited" in answer.json()["error"]["message"]
    assert "Retry-After" in answer
    assert webhook_runs(hook_flow) == 0


def test_the_slot_is_given_back_once_the_run_ends(client, hook_flow, hold_slots):
    for _ in range(3):
        assert send(client, hook_flow).status_code == 200

    assert webhook_runs(hook_flow) == 3


def test_a_replay_gets_its_stored_answer_while_the_flow_is_at_its_cap(
    client, hook_flow, hold_slots
):
    first = send(client, hook_flow, HTTP_IDEMPOTENCY_KEY="order-1")
    hold_slots(hook_flow.created_by_id, hook_flow.pk)

    again = send(client, hook_flow, HTTP_IDEMPOTENCY_KEY="order-1")

    assert again.status_code == 200
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert webhook_runs(hook_flow) == 1


def test_a_new_delivery_id_still_meets_the_cap(client, hook_flow, hold_slots):
    send(client, hook_flow, HTTP_IDEMPOTENCY_KEY="order-1")
    hold_slots(hook_flow.created_by_id, hook_flow.pk)

    answer = send(client, hook_flow, HTTP_IDEMPOTENCY_KEY="order-2")

    assert answer.status_code == 429
    assert webhook_runs(hook_flow) == 1
