"""Requests the webhook refuses, sent over a real socket to a live server.

Each test checks the status, the error envelope and that no run was created.
"""

from __future__ import annotations

import json
import uuid

from tests.factories import FlowFactory
from tests.webhooks.conftest import webhook_runs


def test_unknown_flow_is_not_found(sender, hook_flow):
    answer = sender.post_json(f"/api/webhooks/{uuid.uuid4()}", {"name": "Ada"})

    assert answer.status == 404
    assert answer.json() == {"error": {"code": "not_found", "message": "Not found."}}
    assert webhook_runs(hook_flow) == 0


def test_malformed_flow_id_is_not_found(sender, hook_flow):
    answer = sender.post_json("/api/webhooks/not-a-uuid", {"name": "Ada"})

    assert answer.status == 404
    assert answer.error_code == "not_found"


def test_disabled_webhook_is_not_found(sender, alice):
    flow = FlowFactory(owner=alice, webhook_enabled=False)

    answer = sender.post_json(f"/api/webhooks/{flow.id}", {"name": "Ada"})

    assert answer.status == 404
    assert answer.error_code == "not_found"
    assert webhook_runs(flow) == 0


def test_get_is_method_not_allowed_and_names_post(sender, hook_flow):
    answer = sender.request("GET", f"/api/webhooks/{hook_flow.id}")

    assert answer.status == 405
    assert answer.headers["Allow"] == "POST"
    assert answer.error_code == "method_not_allowed"
    assert webhook_runs(hook_flow) == 0


def test_form_body_is_unsupported_media_type(sender, hook_flow):
    answer = sender.request(
        "POST",
        f"/api/webhooks/{hook_flow.id}",
        b"name=Ada",
        {"Content-Type": "application/x-www-form-urlencoded"},
    )

    assert answer.status == 415
    assert answer.error_code == "unsupported_media_type"
    assert webhook_runs(hook_flow) == 0


def test_oversized_body_is_refused_from_its_length_before_it_is_sent(
    sender, hook_flow, settings
):
    settings.WEBHOOK_MAX_BODY_BYTES = 1000
    conn = sender.connect()
    conn.putrequest("POST", f"/api/webhooks/{hook_flow.id}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(50 * 1024 * 1024))
    conn.endheaders()  # not one byte of the body is sent

    response = conn.getresponse()
    body = json.loads(response.read())
    conn.close()

    assert response.status == 413
    assert body["error"]["code"] == "payload_too_large"
    assert body["error"]["details"] == {"limit": 1000}
    assert webhook_runs(hook_flow) == 0


def test_malformed_json_is_invalid_json(sender, hook_flow):
    answer = sender.post_json(f"/api/webhooks/{hook_flow.id}", b'{"name": "Ada",')

    assert answer.status == 400
    assert answer.error_code == "invalid_json"
    assert webhook_runs(hook_flow) == 0


def test_json_array_is_refused_because_input_must_be_an_object(sender, hook_flow):
    answer = sender.post_json(f"/api/webhooks/{hook_flow.id}", [1, 2, 3])

    assert answer.status == 400
    assert answer.error_code == "validation_error"
    assert "object" in answer.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


def test_extremely_deep_nesting_is_a_validation_error_not_a_crash(sender, hook_flow):
    body = b'{"a": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"

    answer = sender.post_json(f"/api/webhooks/{hook_flow.id}", body)

    assert answer.status == 400
    assert answer.error_code == "validation_error"
    assert "nested" in answer.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


def test_over_the_rate_limit_is_throttled_with_retry_after(sender, hook_flow, settings):
    settings.WEBHOOK_RATE_LIMIT = "2/d"
    path = f"/api/webhooks/{hook_flow.id}"
    # Malformed bodies are refused before counting, so they spend no budget.
    sender.post_json(path, b"nope")
    statuses = [sender.post_json(path, {"n": i}).status for i in range(2)]

    answer = sender.post_json(path, {"n": 3})

    assert statuses == [200, 200]
    assert answer.status == 429
    assert answer.error_code == "throttled"
    assert 1 <= int(answer.headers["Retry-After"]) <= 86400
    assert webhook_runs(hook_flow) == 2
