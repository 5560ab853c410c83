"""The http_request node's pagination against a real paging API on loopback."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory, make_credential
from tests.flows.graphs import chain, node, trigger
from tests.http_answers import ITEMS
from tests.http_server import base

pytestmark = pytest.mark.django_db


def run_paged(server, path, pagination, owner=None, **data):
    call = node(
        "call", "http_request", url=base(server) + path, pagination=pagination, **data
    )
    nodes, edges = chain(trigger(), call)
    flow = FlowFactory(
        nodes=nodes, edges=edges, **({"created_by": owner} if owner else {})
    )
    return run_flow(flow, {}, "manual")


def paths(server) -> list[str]:
    return [hit["path"] for hit in server.seen]


def test_link_mode_follows_rel_next_and_gathers_every_page(api_server, allow_loopback):
    run = run_paged(api_server, "/link", {"mode": "link"})

    assert run.status == "succeeded"
    assert run.results["call"] == {"items": ITEMS, "pages": 3, "more": False}
    assert paths(api_server) == ["/link", "/link?page=2", "/link?page=3"]


def test_link_mode_sends_the_credential_to_every_page(
    api_server, allow_loopback, alice
):
    key = make_credential(alice, "k", "query", {"value": "s3cr3t"}, param_name="key")
    bearer = make_credential(alice, "b", secrets={"token": "tok-9f8e7d6c5b4a"})

    for credential in (key, bearer):
        run = run_paged(
            api_server,
            "/link",
            {"mode": "link"},
            owner=alice,
            credential_id=str(credential.id),
        )
        assert run.results["call"]["pages"] == 3

    assert paths(api_server)[:3] == [
        "/link?key=s3cr3t",
        "/link?page=2&key=s3cr3t",
        "/link?page=3&key=s3cr3t",
    ]
    assert [hit["headers"]["Authorization"] for hit in api_server.seen[3:]] == [
        "Bearer tok-9f8e7d6c5b4a"
    ] * 3


def test_link_mode_refuses_a_next_page_on_another_origin(api_server, allow_loopback):
    run = run_paged(api_server, "/link-away", {"mode": "link"})

    assert run.status == "failed"
    assert run.error["code"] == "pagination_error"
    assert "another origin (http://localhost:" in run.error["message"]
    assert paths(api_server) == ["/link-away"]


def test_cursor_mode_sends_the_answers_cursor_until_there_is_none(
    api_server, allow_loopback
):
    pagination = {
        "mode": "cursor",
        "next": "meta.next",
        "param": "after",
        "items": "data.rows",
    }

    run = run_paged(api_server, "/cursor?sort=n", pagination)

    assert run.results["call"] == {"items": ITEMS, "pages": 3, "more": False}
    assert paths(api_server) == [
        "/cursor?sort=n",
        "/cursor?sort=n&after=2",
        "/cursor?sort=n&after=4",
    ]


def test_a_cursor_that_is_not_text_or_a_number_fails_the_node(
    api_server, allow_loopback
):
    pagination = {"mode": "cursor", "next": "next", "param": "c", "items": "rows"}

    run = run_paged(api_server, "/cursor-object", pagination)

    assert run.error["code"] == "pagination_error"
    assert run.error["message"] == (
        "The next cursor at 'next' is a dict, not text or a number."
    )


def test_page_mode_counts_up_until_an_empty_page(api_server, allow_loopback):
    pagination = {"mode": "page", "param": "page", "items": "results"}

    run = run_paged(api_server, "/pages?page=9", pagination)

    assert run.results["call"] == {"items": ITEMS, "pages": 4, "more": False}
    assert paths(api_server) == [f"/pages?page={n}" for n in (1, 2, 3, 4)]


def test_page_mode_starts_where_start_says(api_server, allow_loopback):
    pagination = {"mode": "page", "param": "page", "start": 2, "items": "results"}

    run = run_paged(api_server, "/pages", pagination)

    assert run.results["call"]["items"] == ITEMS[2:]
    assert paths(api_server)[0] == "/pages?page=2"


@pytest.mark.parametrize(
    "pagination",
    [
        {"mode": "link", "items": "results"},
        {"mode": "cursor", "next": "next", "param": "page", "items": "results"},
        {"mode": "page", "param": "page", "items": "results"},
    ],
)
def test_max_pages_stops_an_endless_listing_and_says_there_is_more(
    api_server, allow_loopback, pagination
):
    run = run_paged(api_server, "/endless", {**pagination, "max_pages": 3})

    assert run.status == "succeeded"
    assert run.results["call"] == {"items": [1, 2, 3], "pages": 3, "more": True}
    assert len(api_server.seen) == 3


def test_max_pages_defaults_to_100(api_server, allow_loopback):
    run = run_paged(api_server, "/endless", {"mode": "link", "items": "results"})

    assert run.results["call"]["pages"] == 100
    assert run.results["call"]["more"] is True


def test_an_items_path_that_holds_no_list_fails_the_node(api_server, allow_loopback):
    run = run_paged(api_server, "/pages", {"mode": "link", "items": "data"})

    assert run.status == "failed"
    assert run.error["code"] == "invalid_items"
    assert run.error["message"].startswith(
        "Page 1: items path 'data' is nothing, not a list."
    )


def test_an_error_page_fails_the_node_even_when_error_answers_are_output(
    api_server, allow_loopback
):
    pagination = {"mode": "page", "param": "page", "items": "results"}

    run = run_paged(api_server, "/fail-on-page-2", pagination, on_http_error="output")

    assert run.status == "failed"
    assert (run.error["code"], run.error["status"]) == ("http_error", 500)
    assert run.error["body"] == '{"error":"page 2 is broken"}'


def test_items_past_the_output_limit_stop_the_paging(
    api_server, allow_loopback, settings
):
    settings.RUN_MAX_OUTPUT_BYTES = 40
    pagination = {"mode": "page", "param": "page", "items": "results"}

    run = run_paged(api_server, "/endless", pagination)

    assert run.error["code"] == "output_too_large"
    assert len(api_server.seen) < 30  # each page's items are "[n]"


def test_each_page_after_the_first_sends_its_own_idempotency_key(
    api_server, allow_loopback
):
    run = run_paged(api_server, "/link", {"mode": "link"})

    keys = [hit["headers"]["Idempotency-Key"] for hit in api_server.seen]
    assert keys == [f"{run.id}:call", f"{run.id}:call:2", f"{run.id}:call:3"]


def test_a_flows_own_idempotency_key_goes_with_every_page(api_server, allow_loopback):
    run_paged(api_server, "/link", {"mode": "link"}, headers={"Idempotency-Key": "k"})

    assert [hit["headers"]["Idempotency-Key"] for hit in api_server.seen] == ["k"] * 3
