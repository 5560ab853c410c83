"""What the http_request node makes of an answer: error statuses
(`on_http_error`), `Retry-After`, `response_format`, and the `query` it sends;
against a real API on loopback."""

from __future__ import annotations

import time

import pytest

from flows.engine import run_flow
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, edge, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db


def run_call(server, path, input=None, **data):
    call = node("call", "http_request", url=base(server) + path, **data)
    nodes, edges = chain(trigger(), call)
    return run_flow(FlowFactory(nodes=nodes, edges=edges), input or {}, "manual")


# on_http_error ---------------------------------------------------------------


@pytest.mark.parametrize("status", [400, 401, 404, 422, 500, 501])
def test_every_error_status_fails_the_node_with_http_error(
    api_server, allow_loopback, status
):
    run = run_call(api_server, f"/status?code={status}&body=nope")

    assert run.status == "failed"
    assert run.error["code"] == "http_error"
    assert run.error["status"] == status
    assert run.error["body"] == "nope"
    assert run.error["message"] == f"The server answered HTTP {status}. Body: nope"


def test_a_long_error_body_is_cut_to_an_excerpt(api_server, allow_loopback):
    run = run_call(api_server, "/status?code=500&size=5000")

    assert run.error["body"] == "e" * 500 + "…"
    assert (
        run.error["message"] == "The server answered HTTP 500. Body: " + "e" * 200 + "…"
    )


def test_a_success_status_is_the_output_as_before(api_server, allow_loopback):
    run = run_call(api_server, "/status?code=201&body=made")

    assert run.status == "succeeded"
    assert (run.results["call"]["status"], run.results["call"]["body"]) == (201, "made")


def test_the_error_output_receives_the_status_and_the_body(api_server, allow_loopback):
    call = node(
        "call", "http_request", url=base(api_server) + "/status?code=404&body=gone"
    )
    call["error_output"] = True
    rescue = code("rescue", "return {status: prev.status, body: prev.body};")
    nodes = [trigger(), call, rescue]
    edges = [edge("trigger", "call"), edge("call", "rescue", "error")]

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, "manual")

    assert run.status == "succeeded"
    assert run.results["rescue"] == {"status": 404, "body": "gone"}


# Retry-After -----------------------------------------------------------------


@pytest.mark.parametrize(("code", "after"), [(429, "1"), (503, "date")])
def test_a_throttled_answer_is_asked_again_after_retry_after(
    api_server, allow_loopback, code, after
):
    started = time.monotonic()

    run = run_call(api_server, f"/throttled?code={code}&after={after}")

    assert run.status == "succeeded"
    assert run.results["call"]["body"] == {"call": 2}
    assert time.monotonic() - started >= 0.9
    assert len(api_server.seen) == 2


def test_a_retry_after_past_the_timeout_gives_up_at_once(api_server, allow_loopback):
    started = time.monotonic()

    run = run_call(api_server, "/throttled?after=30", timeout_ms=5000)

    assert time.monotonic() - started < 2
    assert run.status == "failed"
    assert (run.error["code"], run.error["status"]) == ("http_error", 429)
    assert "asked to retry after 30 s, past the node's deadline" in run.error["message"]
    assert len(api_server.seen) == 1


def test_a_retry_after_past_the_runs_deadline_gives_up_at_once(
    api_server, allow_loopback, settings
):
    settings.RUN_TIMEOUT_SECONDS = 2

    run = run_call(api_server, "/throttled?after=5&code=503", timeout_ms=2000)

    assert (run.error["code"], run.error["status"]) == ("http_error", 503)
    assert len(api_server.seen) == 1


def test_a_throttled_answer_without_retry_after_fails_at_once(
    api_server, allow_loopback
):
    run = run_call(api_server, "/throttled")

    assert (run.error["code"], run.error["status"]) == ("http_error", 429)
    assert len(api_server.seen) == 1


def test_with_output_a_retry_after_past_the_deadline_is_the_output(
    api_server, allow_loopback
):
    run = run_call(api_server, "/throttled?after=30", on_http_error="output")

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 429
    assert run.results["call"]["headers"]["retry-after"] == "30"


def test_retry_after_waits_are_bounded_in_number(api_server, allow_loopback):
    run = run_call(api_server, "/throttled?after=0&times=99")

    assert (run.error["code"], run.error["status"]) == ("http_error", 429)
    assert len(api_server.seen) == 6  # the first call and five waits


# response_format ---------------------------------------------------------------


def test_json_format_parses_a_body_labelled_text(api_server, allow_loopback):
    run = run_call(api_server, "/json-as-text", response_format="json")

    assert run.results["call"]["body"] == {"a": 1}


def test_auto_format_leaves_a_body_labelled_text_as_text(api_server, allow_loopback):
    run = run_call(api_server, "/json-as-text")

    assert run.results["call"]["body"] == '{"a": 1}'


def test_json_format_fails_the_node_on_invalid_json(api_server, allow_loopback):
    run = run_call(api_server, "/bad-json", response_format="json")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_json"
    assert run.error["message"].startswith("The response is not valid JSON (")


def test_auto_format_keeps_invalid_json_as_text(api_server, allow_loopback):
    run = run_call(api_server, "/bad-json")

    assert run.results["call"]["body"] == "{not json"


def test_json_format_reads_an_empty_body_as_null(api_server, allow_loopback):
    run = run_call(api_server, "/empty", response_format="json")

    assert run.results["call"]["body"] is None


def test_text_format_never_parses(api_server, allow_loopback):
    run = run_call(api_server, "/echo", response_format="text")

    assert run.results["call"]["body"] == '{"query": ""}'


# query -----------------------------------------------------------------------


def test_query_pairs_are_templated_and_added_after_the_urls_own(
    api_server, allow_loopback
):
    query = [
        {"name": "q", "value": "{{ input.term }}"},
        {"name": "tag", "value": "a"},
        {"name": "tag", "value": "b&c"},
        {"name": "ids", "value": "{{ input.ids }}"},
        {"name": "limit", "value": 10},
    ]

    run = run_call(
        api_server, "/echo?sort=n", {"term": "café au lait", "ids": [1, 2]}, query=query
    )

    assert run.results["call"]["body"]["query"] == (
        "sort=n&q=caf%C3%A9+au+lait&tag=a&tag=b%26c&ids=1&ids=2&limit=10"
    )
