"""The public form page /f/<slug>: attacks first, then what a visitor sees."""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from accounts.workspaces.models import Membership
from flows.files import open_bytes
from flows.models import FlowRun
from tests.factories import FlowFactory, UserFactory
from tests.flows.graphs import chain, code, node

pytestmark = pytest.mark.django_db

FIELDS = [
    {"name": "name", "label": "Your name", "kind": "text", "required": True},
    {"name": "email", "label": "E-mail", "kind": "email", "required": True},
    {"name": "age", "kind": "number"},
    {"name": "team", "kind": "select", "options": ["red", "blue"]},
    {"name": "tags", "kind": "multi_select", "options": ["a", "b", "c"]},
    {"name": "agree", "kind": "checkbox", "required": True},
    {"name": "day", "kind": "date"},
    {"name": "about", "kind": "long_text"},
    {"name": "cv", "kind": "file"},
]
GOOD = {"name": "Ada", "email": "ada@example.com", "agree": "on"}


def form_flow(user, slug="contact", after=None, **data):
    settings = {"slug": slug, "fields": FIELDS, "title": "Contact us", **data}
    nodes, edges = chain(node("form", "form", **settings), *(after or []))
    return FlowFactory(created_by=user, name="Contact", nodes=nodes, edges=edges)


def csrf_client() -> tuple[Client, str]:
    """A browser: enforces CSRF, and holds the token the page gave it."""
    browser = Client(enforce_csrf_checks=True)
    return browser, browser.get("/f/contact").cookies["csrftoken"].value


def submit(values: dict, path="/f/contact", browser=None):
    browser, token = (browser, None) if browser else csrf_client()
    token = token or browser.cookies["csrftoken"].value
    return browser.post(path, {**values, "csrfmiddlewaretoken": token})


def runs():
    return FlowRun.objects.filter(trigger=FlowRun.Trigger.FORM)


# Attacks


def test_a_post_without_the_csrf_token_starts_no_run(alice):
    form_flow(alice)
    response = Client(enforce_csrf_checks=True).post("/f/contact", GOOD)
    assert response.status_code == 403
    assert not runs().exists()


def test_spam_past_the_rate_limit_is_refused_with_retry_after(alice, settings):
    settings.FORM_RATE_LIMIT = "3/min"
    form_flow(alice)
    browser, _ = csrf_client()
    answers = [submit(GOOD, browser=browser).status_code for _ in range(5)]
    assert answers == [200, 200, 200, 429, 429]
    assert runs().count() == 3
    assert int(submit(GOOD, browser=browser)["Retry-After"]) > 0


def test_a_filled_honeypot_looks_accepted_but_starts_no_run(alice):
    form_flow(alice)
    response = submit({**GOOD, "website": "http://spam.example"})
    assert response.status_code == 200
    assert "Thank you" in response.content.decode()
    assert not runs().exists()


def test_a_filled_honeypot_gets_the_redirect_a_person_would(alice):
    """A bot that sees a thank-you page where people are redirected learns
    which field is the trap."""
    form_flow(alice, answer="redirect", redirect_url="https://example.com/thanks")
    response = submit({**GOOD, "website": "http://spam.example"})
    assert response.status_code == 302
    assert response["Location"] == "https://example.com/thanks"
    assert not runs().exists()


def test_an_upload_over_the_size_limit_is_refused_before_it_is_read(alice, settings):
    settings.FORM_MAX_BODY_BYTES = 10_000
    form_flow(alice)
    big = SimpleUploadedFile("big.bin", b"x" * 20_000)
    response = submit({**GOOD, "cv": big})
    assert response.status_code == 413
    assert "smaller files" in response.content.decode()
    assert not runs().exists()


def test_script_in_labels_and_answers_is_shown_as_text(alice):
    fields = [{"name": "name", "label": "<script>alert(1)</script>", "kind": "text"}]
    form_flow(alice, fields=fields, intro="<img src=x onerror=alert(1)>")
    page = Client().get("/f/contact").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)" in page
    assert "<img" not in page


def test_an_answer_sent_back_with_errors_is_escaped(alice):
    form_flow(alice)
    response = submit({"name": '"><script>alert(1)</script>'})
    assert response.status_code == 400
    assert "<script>alert(1)" not in response.content.decode()


def test_a_response_page_is_sanitised(alice):
    answer = node(
        "reply",
        "response",
        status=200,
        body="<p>Hi {{ input.name }}</p><script>steal()</script>",
    )
    form_flow(alice, answer="response", after=[answer])
    response = submit({**GOOD, "name": '<img src=x onerror="alert(1)">'})
    page = response.content.decode()
    assert response.status_code == 200
    assert "<p>Hi" in page
    assert "steal()" not in page
    assert "onerror" not in page


def test_a_wrong_password_is_refused_beside_the_password(alice):
    form_flow(alice, access="password", password="s3cret")
    response = submit({**GOOD, "form_password": "guess"})
    assert response.status_code == 403
    assert "That password is not right." in response.content.decode()
    assert not runs().exists()
    assert submit({**GOOD, "form_password": "s3cret"}).status_code == 200
    assert runs().count() == 1


def test_a_disabled_flows_form_does_not_exist(alice):
    flow = form_flow(alice)
    flow.webhook_enabled = False
    flow.save()
    assert Client().get("/f/contact").status_code == 404
    response = Client().post("/f/contact", GOOD)
    assert response.status_code == 404
    assert not runs().exists()


def test_another_workspaces_slug_cannot_be_taken(alice, bob, api):
    form_flow(bob)
    nodes, edges = chain(node("form", "form", slug="contact", fields=FIELDS))
    payload = {"name": "Mine", "nodes": nodes, "edges": edges}
    response = api.post("/api/flows", payload, format="json")
    assert response.status_code == 400
    assert "/f/contact" in response.json()["error"]["message"]


def alike(response, slug: str) -> tuple:
    """What a visitor can tell of an answer, its slug written out."""
    body = response.content.decode().replace(slug, "SLUG")
    body = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", body)
    headers = sorted(
        (name, value.replace(slug, "SLUG"))
        for name, value in response.headers.items()
        if name.lower() not in ("date", "x-request-id", "content-length")
    )
    return response.status_code, body, headers


def test_an_anonymous_visitor_cannot_tell_a_members_form_from_no_form(alice):
    """Probing slugs: a members-only form and an unknown slug answer alike
    (404 with a sign-in link), for GET and POST."""
    form_flow(alice, slug="payroll", access="members")
    for method in ("get", "post"):
        member_only = getattr(Client(), method)("/f/payroll")
        unknown = getattr(Client(), method)("/f/nobody-here")
        assert alike(member_only, "payroll") == alike(unknown, "nobody-here")
        assert member_only.status_code == 404
        assert 'href="/login/?next=/f/payroll"' in member_only.content.decode()


def test_probing_slugs_is_throttled_alike_for_members_forms(alice, settings):
    settings.WEBHOOK_MISS_RATE = "2/min"
    form_flow(alice, slug="payroll", access="members")
    browser = Client()
    assert [browser.get("/f/nobody-here").status_code for _ in range(2)] == [404, 404]
    assert browser.get("/f/payroll").status_code == 429
    assert browser.get("/f/nobody-here").status_code == 429


def test_a_member_signing_in_from_the_link_reaches_the_form(alice):
    form_flow(alice, access="members")
    browser = Client()
    assert browser.get("/f/contact").status_code == 404
    browser.force_login(alice)
    assert browser.get("/f/contact").status_code == 200


def test_a_members_only_form_is_hidden_from_other_workspaces(alice, bob):
    form_flow(alice, access="members")
    outsider = Client()
    outsider.force_login(bob)
    assert outsider.get("/f/contact").status_code == 404
    assert outsider.post("/f/contact", GOOD).status_code == 404
    member = Client()
    member.force_login(alice)
    assert member.get("/f/contact").status_code == 200


def test_a_member_of_the_flows_workspace_may_submit(alice):
    flow = form_flow(alice, access="members")
    carol = UserFactory(username="carol")
    Membership.objects.create(workspace=flow.workspace, user=carol, role="viewer")
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(carol)
    browser.get("/f/contact")
    assert submit(GOOD, browser=browser).status_code == 200
    assert runs().count() == 1


def test_an_unknown_slug_is_not_found(db):
    assert Client().get("/f/nothing-here").status_code == 404


# What a visitor sees


def test_the_page_shows_every_field_kind(alice):
    form_flow(alice)
    page = Client().get("/f/contact").content.decode()
    for kind in ('type="email"', 'type="number"', 'type="date"', 'type="file"'):
        assert kind in page
    assert "<textarea" in page and "<select" in page
    assert 'enctype="multipart/form-data"' in page


def test_errors_are_shown_beside_their_fields_and_values_kept(alice):
    form_flow(alice)
    response = submit({"name": "Ada", "email": "not-an-address", "age": "many"})
    page = response.content.decode()
    assert response.status_code == 400
    assert re.search(r'id="field-email-error"[^>]*>Enter an e-mail address', page)
    assert re.search(r'id="field-age-error"[^>]*>Enter a number', page)
    assert re.search(r'id="field-agree-error"[^>]*>Tick this box', page)
    assert 'value="Ada"' in page
    assert not runs().exists()


def test_a_valid_submission_starts_a_run_with_the_values_as_input(alice):
    form_flow(alice, after=[code("echo", "return input;")])
    upload = SimpleUploadedFile("cv.txt", b"my cv", content_type="text/plain")
    values = {**GOOD, "age": "36", "team": "blue", "tags": ["c", "a"], "cv": upload}
    response = submit({**values, "day": "2026-12-31"})
    assert response.status_code == 200
    assert "Thank you, we received your answers." in response.content.decode()
    run = runs().get()
    assert run.status == "succeeded"
    data = {k: v for k, v in run.input.items() if k != "cv"}
    assert data == {
        "name": "Ada",
        "email": "ada@example.com",
        "age": 36,
        "team": "blue",
        "tags": ["a", "c"],
        "agree": True,
        "day": "2026-12-31",
        "about": None,
    }
    assert open_bytes(run.input["cv"], workspace_id=run.flow.workspace_id) == b"my cv"


def test_the_answer_may_be_a_redirect(alice):
    form_flow(alice, answer="redirect", redirect_url="https://example.com/thanks")
    response = submit(GOOD)
    assert response.status_code == 302
    assert response["Location"] == "https://example.com/thanks"
