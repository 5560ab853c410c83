"""A waiting run's resume URL: signed, single use, POST only; GET shows a page."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from flows.engine import run_flow, waits
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.webhooks.conftest import post_webhook

pytestmark = pytest.mark.django_db


@pytest.fixture
def waiting_run(alice):
    nodes, edges = chain(
        trigger(),
        node("approve", "wait", mode="callback", timeout_s=3600),
        code("after", "return prev;"),
    )
    nodes[1]["name"] = "Approve the refund"
    flow = FlowFactory(created_by=alice, name="Refunds", nodes=nodes, edges=edges)
    return run_flow(flow, {"amount": 40}, FlowRun.Trigger.MANUAL)


def status_of(run) -> str:
    return FlowRun.objects.values_list("status", flat=True).get(pk=run.pk)


def path_of(run, node_id="approve") -> str:
    return waits.resume_path(run.pk, node_id)


def test_a_json_post_resumes_the_run(client, waiting_run):
    response = client.post(
        path_of(waiting_run) + "?ref=mail",
        {"note": "ok"},
        content_type="application/json",
    )

    assert response.status_code == 202
    assert response.json() == {"run_id": str(waiting_run.pk), "status": "queued"}
    stored = FlowRun.objects.get(pk=waiting_run.pk)
    assert stored.status == "queued"
    resumed = stored.wait_state["resumed"]
    assert resumed["approved"] is True
    assert resumed["body"] == {"note": "ok"}
    assert resumed["query"] == {"ref": "mail"}
    assert resumed["received_at"]


def test_a_body_saying_approved_false_is_a_rejection(client, waiting_run):
    client.post(
        path_of(waiting_run), {"approved": False}, content_type="application/json"
    )

    resumed = FlowRun.objects.get(pk=waiting_run.pk).wait_state["resumed"]
    assert resumed["approved"] is False


def test_an_empty_post_resumes_with_a_null_body(client, waiting_run):
    response = client.generic("POST", path_of(waiting_run), b"")

    assert response.status_code == 202
    assert FlowRun.objects.get(pk=waiting_run.pk).wait_state["resumed"]["body"] is None


def test_a_token_with_one_byte_changed_is_not_found(client, waiting_run):
    path = path_of(waiting_run)
    flipped = path[:-1] + ("0" if path[-1] != "0" else "1")

    response = client.post(flipped, {}, content_type="application/json")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert status_of(waiting_run) == "waiting"


def test_the_url_of_another_node_is_not_found(client, waiting_run):
    token = waits.resume_token(waiting_run.pk, "approve")
    path = f"/api/resume/{waiting_run.pk}/after/{token}"

    assert client.generic("POST", path, b"").status_code == 404
    assert status_of(waiting_run) == "waiting"


def test_a_second_post_is_a_conflict(client, waiting_run):
    client.generic("POST", path_of(waiting_run), b"")

    response = client.generic("POST", path_of(waiting_run), b"")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "conflict"


def test_a_get_shows_the_page_and_leaves_the_run_waiting(client, waiting_run):
    response = client.get(path_of(waiting_run))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Approve the refund" in page
    assert "Refunds" in page
    assert 'name="approved" value="true"' in page
    assert 'name="approved" value="false"' in page
    assert status_of(waiting_run) == "waiting"


def test_the_page_says_until_when_in_words_not_an_iso_time(client, waiting_run):
    page = client.get(path_of(waiting_run)).content.decode()

    # One hour ahead (timeout_s=3600): the date in words, and the time left.
    words = re.search(r'<time datetime="[^"]+">([^<]+)</time>\s*\(([^)]+)\)', page)
    assert re.fullmatch(r"\d{1,2} [A-Z][a-z]+ \d{4}, \d\d:\d\d UTC", words[1])
    assert words[2].replace("\xa0", " ") in ("59 minutes from now", "1 hour from now")


def test_the_reject_button_resumes_with_approved_false(waiting_run):
    client = Client(enforce_csrf_checks=True)
    page = client.get(path_of(waiting_run)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]

    response = client.post(
        path_of(waiting_run),
        f"approved=false&csrfmiddlewaretoken={token}",
        content_type="application/x-www-form-urlencoded",  # as a browser sends it
    )

    assert response.status_code == 200
    assert "rejected" in response.content.decode()
    resumed = FlowRun.objects.get(pk=waiting_run.pk).wait_state["resumed"]
    assert resumed["approved"] is False
    assert resumed["body"] == {"approved": "false"}


def test_the_page_of_an_answered_run_has_no_buttons(client, waiting_run):
    client.generic("POST", path_of(waiting_run), b"")

    page = client.get(path_of(waiting_run)).content.decode()

    assert "not waiting for an answer any more" in page
    assert "Approve</button>" not in page


def test_a_node_id_with_a_slash_has_a_working_url(client, alice):
    nodes, edges = chain(trigger(), node("a/b", "wait", mode="callback"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert client.generic("POST", path_of(run, "a/b"), b"").status_code == 202


def test_other_methods_are_refused(client, waiting_run):
    response = client.put(path_of(waiting_run))

    assert response.status_code == 405
    assert status_of(waiting_run) == "waiting"


def test_a_body_that_is_not_json_or_a_form_is_refused(client, waiting_run):
    response = client.post(path_of(waiting_run), "hi", content_type="text/plain")

    assert response.status_code == 400
    assert status_of(waiting_run) == "waiting"


def test_a_body_over_the_webhook_limit_is_refused(client, waiting_run, settings):
    settings.WEBHOOK_MAX_BODY_BYTES = 100
    body = {"text": "x" * 200}

    response = client.post(path_of(waiting_run), body, content_type="application/json")

    assert response.status_code == 413
    assert status_of(waiting_run) == "waiting"


def test_a_webhook_whose_run_waits_answers_202_with_the_run_id(client, alice):
    nodes, edges = chain(trigger(), node("approve", "wait", mode="callback"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = post_webhook(client, flow, b'{"order": 7}')

    assert response.status_code == 202
    run = FlowRun.objects.get(flow=flow)
    assert response.json() == {"run_id": str(run.pk), "status": "waiting"}
    assert run.status == "waiting"


def test_a_webhook_whose_run_answered_before_waiting_gets_that_answer(client, alice):
    answer = node("answer", "response", status=201, body={"queued": True})
    nodes, edges = chain(trigger(), answer, node("approve", "wait", mode="callback"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    response = post_webhook(client, flow, b"{}")

    assert response.status_code == 201
    assert response.json() == {"queued": True}
    assert FlowRun.objects.get(flow=flow).status == "waiting"
