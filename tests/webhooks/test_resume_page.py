"""The wait node's page: context chosen by the author, input asked, who
decided, an expired link; and a wait in form mode after a form page."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from flows.engine import background, run_flow, supervisor, waits
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db

CONTEXT = [
    {"name": "Amount", "value": "**{{ input.amount }} EUR**"},
    {"name": "Reason", "value": "{{ input.reason }}"},
]
ASKED = [
    {"name": "refund", "label": "Refund amount", "kind": "number", "required": True},
    {"name": "channel", "kind": "select", "options": ["bank", "card"]},
]


def waiting_run(user, mode="callback", **data):
    wait = node(
        "approve",
        "wait",
        mode=mode,
        timeout_s=3600,
        context=CONTEXT,
        fields=ASKED,
        ask_comment=True,
        **data,
    )
    nodes, edges = chain(trigger(), wait, code("after", "return prev;"))
    nodes[1]["name"] = "Approve the refund"
    flow = FlowFactory(created_by=user, name="Refunds", nodes=nodes, edges=edges)
    reason = "<script>alert(1)</script> [docs](javascript:alert(1))"
    return run_flow(flow, {"amount": 40, "reason": reason}, FlowRun.Trigger.MANUAL)


def path_of(run) -> str:
    return waits.resume_path(run.pk, "approve")


def test_the_page_shows_the_authors_context_as_safe_markdown(alice):
    page = Client().get(path_of(waiting_run(alice))).content.decode()
    assert "<dt>Amount</dt><dd><p><strong>40 EUR</strong></p></dd>" in page
    assert "<script>alert(1)" not in page
    assert 'href="javascript' not in page
    assert 'id="field-refund"' in page and 'id="field-comment"' in page


def test_the_page_shows_times_in_words_and_for_the_viewers_zone(alice):
    page = Client().get(path_of(waiting_run(alice))).content.decode()
    assert re.search(r"This run started\s*<time[^>]*>[^<]*ago</time>", page)
    assert re.search(r'class="local-time muted" data-time="[^"]+"', page)
    assert "js/local_times.js" in page


def test_input_errors_are_shown_beside_their_fields_and_nothing_resumes(alice):
    run = waiting_run(alice)
    response = Client().post(path_of(run), {"approved": "true", "refund": "lots"})
    assert response.status_code == 400
    assert re.search(
        r'id="field-refund-error"[^>]*>Enter a number', response.content.decode()
    )
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"


def test_values_comment_decision_and_who_decided_become_the_output(alice):
    run = waiting_run(alice)
    browser = Client()
    browser.force_login(alice)
    answer = {"approved": "false", "refund": "12.5", "channel": "card", "comment": "No"}
    response = browser.post(path_of(run), answer)
    assert response.status_code == 200
    assert "rejected" in response.content.decode()
    assert background.execute_queued(str(run.pk)) == "succeeded"
    run.refresh_from_db()
    output = run.results["approve"]
    assert output["approved"] is False
    assert output["decision"] == "rejected"
    assert output["values"] == {"refund": 12.5, "channel": "card"}
    assert output["comment"] == "No"
    assert output["decided_by"] == {"id": str(alice.pk), "username": "alice"}


def test_an_anonymous_decision_has_no_one_named(alice):
    run = waiting_run(alice)
    Client().post(path_of(run), {"approved": "true", "refund": "1"})
    resumed = FlowRun.objects.get(pk=run.pk).wait_state["resumed"]
    assert resumed["decided_by"] is None
    assert resumed["decision"] == "approved"


def test_an_expired_link_says_so(alice):
    run = waiting_run(alice, on_timeout="continue")
    FlowRun.objects.filter(pk=run.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    supervisor.recover()
    background.execute_queued(str(run.pk))
    page = Client().get(path_of(run)).content.decode()
    assert "This link has expired" in page
    assert "Approve</button>" not in page


def test_a_link_past_its_time_but_not_yet_woken_says_expired_too(alice):
    run = waiting_run(alice)
    state = {**run.wait_state, "wake_at": "2020-01-01T00:00:00+00:00"}
    FlowRun.objects.filter(pk=run.pk).update(wait_state=state)
    page = Client().get(path_of(run)).content.decode()
    assert "This link has expired" in page


def test_a_form_wait_has_one_submit_button(alice):
    page = Client().get(path_of(waiting_run(alice, mode="form"))).content.decode()
    assert ">Submit</button>" in page
    assert "Reject" not in page


def test_a_form_page_leads_to_the_second_form_of_its_run(alice):
    form = node("form", "form", slug="apply", fields=[{"name": "name", "kind": "text"}])
    second = node(
        "more", "wait", mode="form", fields=[{"name": "age", "kind": "number"}]
    )
    nodes, edges = chain(form, second)
    FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    browser = Client()
    response = browser.post("/f/apply", {"name": "Ada"})
    run = FlowRun.objects.get(trigger="form")
    assert response.status_code == 302
    assert response["Location"] == waits.resume_path(run.pk, "more")
    assert ">Submit</button>" in browser.get(response["Location"]).content.decode()


def test_a_json_answer_cannot_skip_the_pages_field_checks(alice):
    """A form page's visitor is sent to the wait's link; posting JSON there
    instead of the page's form must not skip its fields' checks."""
    run = waiting_run(alice, mode="form")
    forged = {"values": {"refund": "lots", "channel": "cash", "admin": True}}
    response = Client().post(path_of(run), forged, content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert error["details"] == {
        "refund": ["Enter a number, like 42 or 3.5."],
        "channel": ["Choose one of the options shown."],
    }
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"
    good = {"values": {"refund": 12.5, "channel": "card", "admin": True}}
    answer = Client().post(path_of(run), good, content_type="application/json")
    assert answer.status_code == 202
    assert background.execute_queued(str(run.pk)) == "succeeded"
    output = FlowRun.objects.get(pk=run.pk).results["approve"]
    assert output["values"] == {"refund": 12.5, "channel": "card"}


def test_a_cross_site_post_of_the_pages_form_without_its_token_is_refused(alice):
    """Another site's page posting Reject to a link it learnt: the link is the
    authorisation, but the visitor's browser must not answer for them."""
    run = waiting_run(alice)
    forged = Client(enforce_csrf_checks=True).post(
        path_of(run),
        {"approved": "false", "refund": "1"},
        HTTP_ORIGIN="https://evil.example",
    )
    assert forged.status_code == 403
    assert forged.json()["error"]["code"] == "csrf_failed"
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"


def test_a_bodiless_post_from_another_sites_browser_is_refused(alice):
    """A cross-site page can send a POST with no body or a text/plain one
    (no token, no JSON); that must not approve."""
    run = waiting_run(alice)
    forged = Client(enforce_csrf_checks=True).post(
        path_of(run), "", content_type="text/plain", HTTP_ORIGIN="https://evil.example"
    )
    assert forged.status_code == 403
    assert forged.json()["error"]["code"] == "csrf_failed"
    assert FlowRun.objects.get(pk=run.pk).status == "waiting"


def test_the_pages_own_form_with_its_token_resumes_the_run(alice):
    run = waiting_run(alice)
    browser = Client(enforce_csrf_checks=True)
    page = browser.get(path_of(run)).content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)[1]
    response = browser.post(
        path_of(run), {"approved": "true", "refund": "3", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 200
    assert "approved" in response.content.decode()
    resumed = FlowRun.objects.get(pk=run.pk)
    assert resumed.status == "queued"
    assert "csrfmiddlewaretoken" not in resumed.wait_state["resumed"]["body"]


def test_a_programs_json_post_needs_no_token(alice):
    run = waiting_run(alice)
    response = Client(enforce_csrf_checks=True).post(
        path_of(run),
        {"approved": True, "values": {"refund": 2}},
        content_type="application/json",
    )
    assert response.status_code == 202
    assert FlowRun.objects.get(pk=run.pk).status == "queued"
