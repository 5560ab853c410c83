"""The webhook over a real socket, as an external sender meets it.

Accepted requests: the answer, and exactly one run each. Refusals are tested
through Django's test client (test_views.py, test_limits.py); the two kept here
are those only a real server shows: a refusal sent before the body is, and a
parser that must not crash a server thread.
"""

from __future__ import annotations

import json
import time

from flows.models import FlowRun
from tests.factories import FlowFactory, webhook_code_graph
from tests.webhooks.conftest import webhook_runs
from webhooks.signatures import generate_secret, signed_headers


def path(flow) -> str:
    return f"/api/webhooks/{flow.id}"


def signed_flow(alice):
    return FlowFactory(created_by=alice, webhook_secret=generate_secret())


def test_a_json_object_runs_the_flow_and_answers_the_run_result(sender, hook_flow):
    answer = sender.post_json(path(hook_flow), {"name": "Ada"})

    assert answer.status == 200
    result = answer.json()
    run = FlowRun.objects.get(flow=hook_flow)
    assert result["success"] is True
    assert result["run_id"] == str(run.id)
    assert result["status"] == "succeeded"
    assert result["results"]["greet"] == {"greeting": "hi Ada"}
    assert result["error"] is None
    assert isinstance(result["duration"], float)
    assert run.trigger == FlowRun.Trigger.WEBHOOK
    assert run.input == {"name": "Ada"}


def test_each_request_makes_exactly_one_run(sender, hook_flow):
    for name in ("Ada", "Grace", "Edsger"):
        assert sender.post_json(path(hook_flow), {"name": name}).status == 200

    inputs = sorted(run.input["name"] for run in FlowRun.objects.filter(flow=hook_flow))
    assert inputs == ["Ada", "Edsger", "Grace"]


def test_json_with_a_utf8_charset_is_accepted(sender, hook_flow):
    answer = sender.request(
        "POST",
        path(hook_flow),
        '{"name": "Zoë"}'.encode(),
        {"Content-Type": "application/json; charset=UTF-8"},
    )

    assert answer.status == 200
    assert answer.json()["results"]["greet"] == {"greeting": "hi Zoë"}
    assert webhook_runs(hook_flow) == 1


def test_the_run_keeps_safe_request_facts_and_no_secrets(sender, alice):
    flow = signed_flow(alice)
    body = b'{"name": "Ada"}'
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Sender/1.0",
        "X-Request-Id": "req-42",
        "Cookie": "sessionid=stolen",
        "Authorization": "Bearer hunter2",
        "X-Api-Key": "hunter3",
        **signed_headers(flow.webhook_secret, body, msg_id="msg_meta"),
    }

    answer = sender.request("POST", path(flow), body, headers)

    assert answer.status == 200
    meta = FlowRun.objects.get(flow=flow).request_meta
    assert meta["remote_addr"] == "127.0.0.1"
    assert meta["content_length"] == len(body)
    assert meta["content_type"] == "application/json"
    assert meta["user_agent"] == "Sender/1.0"
    assert meta["headers"]["x-request-id"] == "req-42"
    assert meta["headers"]["webhook-id"] == "msg_meta"
    stored = str(meta).lower()
    for secret in ("stolen", "hunter2", "hunter3", headers["webhook-signature"]):
        assert secret.lower() not in stored
    assert "cookie" not in stored
    assert "authorization" not in stored


def test_a_failing_node_answers_500_with_the_run_result(sender, alice):
    nodes, edges = webhook_code_graph("throw new Error('no name given');")
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    answer = sender.post_json(path(flow), {})

    assert answer.status == 500
    body = answer.json()
    run = FlowRun.objects.get(flow=flow)
    assert body["success"] is False
    assert body["run_id"] == str(run.id)
    assert body["status"] == "failed"
    assert body["error"]["node_id"] == "greet"
    assert "no name given" in body["error"]["message"]
    assert body["error"]["code"]
    assert run.status == FlowRun.Status.FAILED


def test_a_run_past_its_time_limit_answers_504_with_its_run_id(sender, alice, settings):
    settings.CODE_TIMEOUT_MS = 200
    nodes, edges = webhook_code_graph("while (true) {}")
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    started = time.monotonic()
    answer = sender.post_json(path(flow), {})

    assert answer.status == 504
    run = FlowRun.objects.get(flow=flow)
    assert answer.json()["run_id"] == str(run.id)
    assert answer.json()["status"] == "timed_out"
    assert run.status == FlowRun.Status.TIMED_OUT
    assert time.monotonic() - started < 5


def test_a_correctly_signed_request_runs(sender, alice):
    flow = signed_flow(alice)
    body = b'{"name": "Ada"}'

    answer = sender.post_json(
        path(flow), body, signed_headers(flow.webhook_secret, body)
    )

    assert answer.status == 200
    assert answer.json()["results"]["greet"] == {"greeting": "hi Ada"}
    assert webhook_runs(flow) == 1


def test_an_unsigned_request_to_a_signed_flow_is_401(sender, alice):
    flow = signed_flow(alice)

    answer = sender.post_json(path(flow), {"name": "Ada"})

    assert answer.status == 401
    assert answer.error_code == "not_authenticated"
    assert "signature" in answer.json()["error"]["message"]
    assert webhook_runs(flow) == 0


def test_a_tampered_body_is_401(sender, alice):
    flow = signed_flow(alice)
    headers = signed_headers(flow.webhook_secret, b'{"name": "Ada"}')

    answer = sender.post_json(path(flow), b'{"name": "Eve"}', headers)

    assert answer.status == 401
    assert answer.error_code == "not_authenticated"
    assert webhook_runs(flow) == 0


def test_a_stale_timestamp_is_401_even_with_a_valid_signature(sender, alice):
    flow = signed_flow(alice)
    body = b'{"name": "Ada"}'
    headers = signed_headers(
        flow.webhook_secret, body, timestamp=int(time.time()) - 301
    )

    answer = sender.post_json(path(flow), body, headers)

    assert answer.status == 401
    assert "5 minutes" in answer.json()["error"]["message"]
    assert webhook_runs(flow) == 0


def test_a_retry_after_429_with_the_same_id_is_not_a_replay(sender, alice, settings):
    settings.WEBHOOK_RATE_LIMIT = "1/d"
    flow = signed_flow(alice)
    sender.post_json(path(flow), b"{}", signed_headers(flow.webhook_secret, b"{}"))
    body = b'{"name": "Ada"}'
    headers = signed_headers(flow.webhook_secret, body, msg_id="msg_retry")
    throttled = sender.post_json(path(flow), body, headers)
    settings.WEBHOOK_RATE_LIMIT = "10/d"

    retried = sender.post_json(path(flow), body, headers)

    assert throttled.status == 429
    assert retried.status == 200
    assert webhook_runs(flow) == 2


def test_a_forged_request_does_not_spend_the_senders_rate_budget(
    sender, alice, settings
):
    settings.WEBHOOK_RATE_LIMIT = "1/d"
    flow = signed_flow(alice)
    for _ in range(3):
        assert sender.post_json(path(flow), {"name": "Eve"}).status == 401
    body = b'{"name": "Ada"}'

    answer = sender.post_json(
        path(flow), body, signed_headers(flow.webhook_secret, body)
    )

    assert answer.status == 200
    assert webhook_runs(flow) == 1


def test_removing_the_secret_lets_unsigned_requests_in_again(sender, alice, api):
    flow = signed_flow(alice)
    api.delete(f"/api/flows/{flow.id}/webhook-secret")

    answer = sender.post_json(path(flow), {"name": "Ada"})

    assert answer.status == 200
    assert webhook_runs(flow) == 1


def test_oversized_body_is_refused_from_its_length_before_it_is_sent(
    sender, hook_flow, settings
):
    settings.WEBHOOK_MAX_BODY_BYTES = 1000
    conn = sender.connect()
    conn.putrequest("POST", path(hook_flow))
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


def test_extremely_deep_nesting_is_a_validation_error_not_a_crash(
    sender, hook_flow, settings
):
    """Parsed in a server thread, whose stack is not the test's main thread's."""
    # 200,000 values: lift their limit, so the parser is what meets the nesting.
    settings.WEBHOOK_MAX_BODY_VALUES = 1_000_000
    body = b'{"a": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"

    answer = sender.post_json(path(hook_flow), body)

    assert answer.status == 400
    assert answer.error_code == "validation_error"
    assert "nested" in answer.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0
