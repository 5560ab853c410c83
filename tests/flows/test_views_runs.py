"""The Runs page (`/runs/`) and the run page's readable errors."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from flows.views import readable_error
from tests.factories import FlowFactory, FlowRunFactory

pytestmark = pytest.mark.django_db


def run_rows(html: str) -> list[str]:
    return re.findall(r'<tr class="run-row">.*?</tr>', html, re.S)


def test_anonymous_visitors_are_sent_to_sign_in():
    response = Client().get("/runs/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_runs_page_shows_only_the_users_runs(alice_client, alice, bob_flow):
    FlowRunFactory(flow=FlowFactory(owner=alice, name="Mine"))
    FlowRunFactory(flow=bob_flow)

    html = alice_client.get("/runs/").content.decode()

    assert len(run_rows(html)) == 1
    assert "Mine" in html
    assert "Bob&#x27;s flow" not in html


def test_the_runs_page_filters_and_keeps_the_filters_when_paging(alice_client, alice):
    flow = FlowFactory(owner=alice)
    for _ in range(26):
        FlowRunFactory(flow=flow, status="failed")
    FlowRunFactory(flow=flow)

    html = alice_client.get("/runs/?status=failed").content.decode()

    assert len(run_rows(html)) == 25
    assert "Page 1 of 2 · 26 runs" in html
    assert 'href="?status=failed&amp;page=2"' in html
    second = alice_client.get("/runs/?status=failed&page=2").content.decode()
    assert len(run_rows(second)) == 1


def test_a_bad_filter_is_explained_on_the_page(alice_client, alice):
    FlowRunFactory(flow=FlowFactory(owner=alice))

    response = alice_client.get("/runs/?since=last+tuesday")

    assert response.status_code == 200
    html = response.content.decode()
    assert "The filter &#x27;since&#x27; is not valid" in html
    assert run_rows(html) == []


def test_the_runs_page_costs_the_same_queries_for_many_runs(
    alice_client, alice, django_assert_num_queries
):
    for _ in range(10):
        FlowRunFactory(flow=FlowFactory(owner=alice))

    # session, user, count, page (flows joined)
    with django_assert_num_queries(4):
        alice_client.get("/runs/")


def test_expression_errors_lose_the_sandboxs_stack_lines():
    error = {
        "code": "template_error",
        "message": "A {{ }} expression failed: TypeError: x is undefined\n"
        "    at anonymous (<input>:3:9)\n    at call (native)\n",
    }

    assert readable_error(error) == (
        "template_error: A {{ }} expression failed: TypeError: x is undefined"
    )


def test_code_errors_keep_the_users_own_line_numbers():
    error = {
        "code": "code_error",
        "message": "Error: no\n    at <anonymous> (line 1, column 7)",
    }

    assert readable_error(error) == f"code_error: {error['message']}"
