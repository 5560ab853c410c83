"""The webhook view: which flows answer, which methods, and the order of refusals.

Through Django's test client; the request checks themselves are in
test_limits.py, what only a real server shows in test_views_over_http.py.
"""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from flows.engine import fair_queue
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.webhooks.conftest import post_webhook, webhook_runs
from webhooks.signatures import generate_secret


def test_unknown_flow_is_not_found(client, hook_flow):
    response = client.post(
        f"/api/webhooks/{uuid.uuid4()}", b"{}", content_type="application/json"
    )

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}
    assert webhook_runs(hook_flow) == 0


def test_malformed_flow_id_is_not_found(client, db):
    response = client.post(
        "/api/webhooks/not-a-uuid", b"{}", content_type="application/json"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_disabled_webhook_is_not_found(client, alice):
    flow = FlowFactory(created_by=alice, webhook_enabled=False)

    response = post_webhook(client, flow, b'{"name": "Ada"}')

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert webhook_runs(flow) == 0


@pytest.mark.parametrize("method", ["GET", "PUT", "PATCH", "DELETE", "HEAD"])
def test_a_method_the_webhook_node_does_not_take_is_405(client, hook_flow, method):
    response = client.generic(method, f"/api/webhooks/{hook_flow.id}")

    assert response.status_code == 405
    assert response["Allow"] == "POST, OPTIONS"
    if method != "HEAD":
        error = response.json()["error"]
        assert error == {
            "code": "method_not_allowed",
            "message": "This webhook accepts POST.",
        }
    assert webhook_runs(hook_flow) == 0


def test_unknown_flow_answers_404_before_405(client, db):
    response = client.get("/api/webhooks/00000000-0000-0000-0000-000000000000")

    assert response.status_code == 404


def test_a_signed_in_browser_session_changes_nothing(
    client, hook_flow, alice, settings
):
    """No CSRF token is needed, and the session grants no way past the checks."""
    settings.WEBHOOK_MAX_BODY_BYTES = 5
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(alice)

    response = post_webhook(csrf_client, hook_flow, b'{"a": 1}')

    assert response.status_code == 413
    assert "Set-Cookie" not in response


def test_the_owners_session_does_not_stand_in_for_a_signature(alice):
    flow = FlowFactory(created_by=alice, webhook_secret=generate_secret())
    browser = Client()
    browser.force_login(alice)

    response = post_webhook(browser, flow, b'{"name": "Ada"}')

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert webhook_runs(flow) == 0


def test_the_owners_session_does_not_open_a_disabled_webhook(alice):
    flow = FlowFactory(created_by=alice, webhook_enabled=False)
    browser = Client()
    browser.force_login(alice)

    response = post_webhook(browser, flow, b'{"name": "Ada"}')

    assert response.status_code == 404
    assert webhook_runs(flow) == 0


def test_prefer_respond_async_queues_the_run_and_answers_202(client, hook_flow):
    response = post_webhook(
        client, hook_flow, b'{"name": "Ada"}', HTTP_PREFER="respond-async"
    )

    assert response.status_code == 202
    run = FlowRun.objects.get(flow=hook_flow)
    assert response.json() == {"run_id": str(run.id), "status": "queued"}
    assert response["Preference-Applied"] == "respond-async"
    assert (run.status, run.background, run.trigger) == ("queued", True, "webhook")
    assert fair_queue.next_due_run_id() == str(run.id)  # a worker takes it next


def test_a_flow_set_to_answer_immediately_queues_every_run(client, alice):
    flow = FlowFactory(created_by=alice, webhook_response_mode="immediately")

    response = post_webhook(client, flow, b'{"name": "Ada"}')

    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert webhook_runs(flow) == 1
    assert FlowRun.objects.get(flow=flow).status == "queued"


def test_by_default_the_webhook_answers_when_the_flow_completes(client, hook_flow):
    response = post_webhook(client, hook_flow, b'{"name": "Ada"}')

    assert response.status_code == 200
    assert response.json()["status"] == "succeeded"
    assert fair_queue.next_due_run_id() is None


@pytest.mark.django_db
def test_a_deactivated_owners_webhook_is_404_and_runs_nothing(client, alice):
    flow = FlowFactory(created_by=alice)
    alice.is_active = False
    alice.save()

    response = client.post(
        f"/api/webhooks/{flow.pk}", {"name": "Ada"}, content_type="application/json"
    )

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert not FlowRun.objects.exists()


@pytest.mark.parametrize(
    "nodes",
    [
        [{"id": "s", "type": "schedule", "data": {"cron": "0 9 * * 1-5"}}],
        [{"id": "c", "type": "code", "data": {"code": "return {secret: 42};"}}],
    ],
    ids=["schedule-only", "sub-flow"],
)
def test_a_flow_without_a_webhook_trigger_has_no_webhook(client, alice, nodes):
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[], webhook_enabled=True)

    response = post_webhook(client, flow, b"{}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert not FlowRun.objects.filter(flow=flow).exists()
