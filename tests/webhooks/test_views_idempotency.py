"""Idempotent deliveries: one run per delivery id and flow, its answer replayed.

Through Django's test client; two real servers racing one id are in
test_views_two_servers.py.
"""

from __future__ import annotations

import json

import pytest

from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory, FlowRunFactory, webhook_code_graph
from tests.webhooks.conftest import post_webhook, webhook_runs
from tests.webhooks.test_responses import response_flow
from webhooks.signatures import generate_secret, signed_headers


def send(client, flow, payload: dict, key: str | None = None, **headers):
    if key is not None:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return post_webhook(client, flow, json.dumps(payload), **headers)


def send_signed(client, flow, payload: dict, msg_id: str):
    body = json.dumps(payload).encode()
    headers = signed_headers(flow.webhook_secret, body, msg_id=msg_id)
    meta = {f"HTTP_{name.upper().replace('-', '_')}": v for name, v in headers.items()}
    return post_webhook(client, flow, body, **meta)


def test_a_repeated_idempotency_key_replays_the_stored_answer(client, hook_flow):
    first = send(client, hook_flow, {"name": "Ada"}, key="order-1")

    again = send(client, hook_flow, {"name": "Ada"}, key="order-1")

    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first
    run = FlowRun.objects.get(flow=hook_flow)
    assert run.delivery_id == "order-1"
    assert again.json()["run_id"] == str(run.id)


def test_a_repeated_signed_webhook_id_replays_the_stored_answer(client, alice):
    flow = FlowFactory(created_by=alice, webhook_secret=generate_secret())
    first = send_signed(client, flow, {"name": "Ada"}, "msg_1")

    again = send_signed(client, flow, {"name": "Ada"}, "msg_1")

    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert FlowRun.objects.get(flow=flow).delivery_id == "msg_1"


def test_a_replayed_failure_keeps_its_500_and_body(client, alice):
    nodes, edges = webhook_code_graph("throw new Error('no stock');")
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    first = send(client, flow, {}, key="k")

    again = send(client, flow, {}, key="k")

    assert (first.status_code, again.status_code) == (500, 500)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert webhook_runs(flow) == 1


def test_a_replayed_response_node_answer_keeps_status_headers_and_body(client, alice):
    flow = response_flow(
        alice,
        {"status": 201, "headers": {"X-Order": "{{ input.id }}"}, "body": "made"},
    )
    first = send(client, flow, {"id": 7}, key="k")

    again = send(client, flow, {"id": 7}, key="k")

    assert (first.status_code, again.status_code) == (201, 201)
    assert again.content == first.content == b"made"
    assert again["X-Order"] == "7"
    assert again["Content-Type"] == first["Content-Type"]
    assert again["Idempotent-Replayed"] == "true"
    assert webhook_runs(flow) == 1


def test_a_delivery_still_running_is_409_and_runs_nothing(client, hook_flow):
    running = FlowRunFactory(
        flow=hook_flow,
        trigger=FlowRun.Trigger.WEBHOOK,
        status=FlowRun.Status.RUNNING,
        input={"name": "Ada"},
        delivery_id="k",
    )

    answer = send(client, hook_flow, {"name": "Ada"}, key="k")

    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "conflict"
    assert "still running" in answer.json()["error"]["message"]
    assert list(FlowRun.objects.filter(flow=hook_flow)) == [running]


@pytest.mark.parametrize(
    "status, error",
    [
        # stored before the `interrupted` state existed (migration 0007 moves them)
        (FlowRun.Status.FAILED, {"node_id": None, "code": "interrupted"}),
        (FlowRun.Status.INTERRUPTED, None),  # the state the supervisor writes
    ],
)
def test_an_interrupted_delivery_runs_anew_in_the_same_row(
    client, hook_flow, status, error
):
    cut_off = FlowRunFactory(
        flow=hook_flow,
        trigger=FlowRun.Trigger.WEBHOOK,
        status=status,
        error=error,
        input={"name": "Ada"},
        delivery_id="k",
    )
    RunStep.objects.create(
        run=cut_off, position=0, node_id="trigger", node_type="webhook", status="failed"
    )

    answer = send(client, hook_flow, {"name": "Ada"}, key="k")

    assert answer.status_code == 200
    assert "Idempotent-Replayed" not in answer
    assert answer.json()["run_id"] == str(cut_off.id)
    assert answer.json()["results"]["greet"] == {"greeting": "hi Ada"}
    run = FlowRun.objects.get(flow=hook_flow)
    assert run.status == FlowRun.Status.SUCCEEDED
    assert run.error is None
    assert list(run.steps.values_list("node_id", "status")) == [
        ("trigger", "succeeded"),
        ("greet", "succeeded"),
    ]


def test_a_failed_delivery_that_was_not_interrupted_is_replayed(client, hook_flow):
    FlowRunFactory(
        flow=hook_flow,
        trigger=FlowRun.Trigger.WEBHOOK,
        status=FlowRun.Status.FAILED,
        error={"node_id": "greet", "code": "code_error", "message": "boom"},
        input={"name": "Ada"},
        delivery_id="k",
    )

    answer = send(client, hook_flow, {"name": "Ada"}, key="k")

    assert answer.status_code == 500
    assert answer.json()["error"]["message"] == "boom"
    assert answer["Idempotent-Replayed"] == "true"
    assert webhook_runs(hook_flow) == 1


def test_a_used_key_with_a_different_body_is_409_and_reveals_nothing(client, hook_flow):
    send(client, hook_flow, {"name": "Ada"}, key="k")

    guess = send(client, hook_flow, {"name": "Eve"}, key="k")

    assert guess.status_code == 409
    assert guess.json()["error"]["code"] == "conflict"
    assert "different body" in guess.json()["error"]["message"]
    assert "Ada" not in guess.content.decode()
    assert webhook_runs(hook_flow) == 1


def test_delivery_ids_are_per_flow(client, alice):
    one, two = FlowFactory(created_by=alice), FlowFactory(created_by=alice)

    first = send(client, one, {"name": "Ada"}, key="k")
    second = send(client, two, {"name": "Ada"}, key="k")

    assert (first.status_code, second.status_code) == (200, 200)
    assert "Idempotent-Replayed" not in second
    assert webhook_runs(one) == webhook_runs(two) == 1


def test_requests_without_an_id_each_run(client, hook_flow):
    for _ in range(2):
        assert send(client, hook_flow, {"name": "Ada"}).status_code == 200

    assert set(FlowRun.objects.values_list("delivery_id", flat=True)) == {""}
    assert webhook_runs(hook_flow) == 2


def test_a_signed_flow_keys_on_the_signed_id_not_idempotency_key(client, alice):
    flow = FlowFactory(created_by=alice, webhook_secret=generate_secret())
    body = b'{"name": "Ada"}'
    for msg_id in ("msg_1", "msg_2"):
        headers = signed_headers(flow.webhook_secret, body, msg_id=msg_id)
        meta = {f"HTTP_{k.upper().replace('-', '_')}": v for k, v in headers.items()}
        answer = post_webhook(client, flow, body, HTTP_IDEMPOTENCY_KEY="same", **meta)
        assert answer.status_code == 200

    ids = set(FlowRun.objects.filter(flow=flow).values_list("delivery_id", flat=True))
    assert ids == {"msg_1", "msg_2"}


def test_an_idempotency_key_over_256_characters_is_400(client, hook_flow):
    answer = send(client, hook_flow, {"name": "Ada"}, key="k" * 257)

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "validation_error"
    assert "Idempotency-Key" in answer.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


def test_a_256_character_key_is_kept_whole(client, hook_flow):
    key = "k" * 256
    send(client, hook_flow, {"name": "Ada"}, key=key)

    again = send(client, hook_flow, {"name": "Ada"}, key=key)

    assert again["Idempotent-Replayed"] == "true"
    assert FlowRun.objects.get(flow=hook_flow).delivery_id == key


def test_a_retry_after_503_with_the_same_key_runs(client, hook_flow, settings):
    settings.SYNC_RUNS_PER_PROCESS = 0
    refused = send(client, hook_flow, {"name": "Ada"}, key="k")
    settings.SYNC_RUNS_PER_PROCESS = 4

    retried = send(client, hook_flow, {"name": "Ada"}, key="k")

    assert refused.status_code == 503
    assert retried.status_code == 200
    assert "Idempotent-Replayed" not in retried
    assert webhook_runs(hook_flow) == 1


TICK = "schedule:2026-11-24T09:00:00Z"


def test_a_caller_cannot_replay_a_scheduled_run_and_read_its_results(client, hook_flow):
    FlowRunFactory(
        flow=hook_flow,
        trigger=FlowRun.Trigger.SCHEDULE,
        status=FlowRun.Status.SUCCEEDED,
        delivery_id=TICK,
        input={"scheduled_for": "2026-11-24T09:00:00Z"},
        results={"report": "quarterly numbers"},
    )

    response = send(client, hook_flow, {"scheduled_for": "2026-11-24T09:00:00Z"}, TICK)

    assert response.status_code == 400
    assert "quarterly" not in response.text
    assert "Idempotent-Replayed" not in response


def test_a_caller_cannot_take_a_future_ticks_delivery_id(client, hook_flow):
    from datetime import UTC, datetime

    from flows.schedules.scheduler import fire

    response = send(client, hook_flow, {"name": "Ada"}, TICK)

    assert response.status_code == 400
    assert fire(hook_flow, datetime(2026, 11, 24, 9, tzinfo=UTC)) is not None


def test_a_caller_cannot_take_a_called_flows_delivery_id(client, hook_flow):
    """`call:<parent run>:<node>` is the id of a child run; a caller who sends
    it first would plant the result the parent then reads (issue 27)."""
    planted = "call:5b7c3e2a-0000-4000-8000-000000000000:call"

    response = send(client, hook_flow, {"name": "Ada"}, planted)

    assert response.status_code == 400
    assert "call:" in response.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0
