"""Per-node retries: attempts counted and stored, the `on` filter, backoff
bounded by the run's deadline."""

from __future__ import annotations

import time

import pytest

from flows.engine import run_flow
from flows.graph.retry import RetryPolicy
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base

pytestmark = pytest.mark.django_db


def run_one(step: dict, input=None):
    nodes, edges = chain(trigger(), step)
    return run_flow(FlowFactory(nodes=nodes, edges=edges), input or {}, "manual")


def with_retry(step: dict, **retry) -> dict:
    return {**step, "retry": retry}


def test_a_503_listed_in_on_is_retried_until_the_service_answers(
    server, allow_loopback
):
    call = node(
        "call",
        "http_request",
        url=base(server) + "/flaky?fail=2",
        on_http_error="output",
    )

    run = run_one(with_retry(call, max_attempts=3, delay_ms=10, on=[503]))

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 200
    step = run.steps.get(node_id="call")
    assert [(a["attempt"], a["status"]) for a in step.attempts] == [
        (1, "failed"),
        (2, "failed"),
        (3, "succeeded"),
    ]
    assert step.attempts[0]["error"] == {
        "code": "http_status",
        "message": "The server answered HTTP 503.",
    }
    assert len(server.hits) == 3


def test_when_attempts_run_out_the_node_fails_with_the_last_error(
    server, allow_loopback
):
    call = node(
        "call",
        "http_request",
        url=base(server) + "/flaky?fail=9",
        on_http_error="output",
    )

    run = run_one(with_retry(call, max_attempts=2, on=["5xx"]))

    assert run.status == "failed"
    assert run.error["code"] == "http_status"
    assert len(run.steps.get(node_id="call").attempts) == 2
    assert len(server.hits) == 2


def test_a_status_not_listed_is_an_answer_not_a_failure(server, allow_loopback):
    call = node(
        "call",
        "http_request",
        url=base(server) + "/flaky?fail=9",
        on_http_error="output",
    )

    run = run_one(with_retry(call, max_attempts=3, on=["http_error"]))

    assert run.status == "succeeded"
    assert run.results["call"]["status"] == 503
    assert len(server.hits) == 1


def test_a_failing_http_node_is_retried_on_a_status_listed_in_on(
    server, allow_loopback
):
    call = node("call", "http_request", url=base(server) + "/flaky?fail=2")

    run = run_one(with_retry(call, max_attempts=3, delay_ms=10, on=["5xx"]))

    assert run.status == "succeeded"
    assert run.results["call"]["body"] == {"call": 3}
    attempts = run.steps.get(node_id="call").attempts
    assert [a["status"] for a in attempts] == ["failed", "failed", "succeeded"]
    assert attempts[0]["error"]["code"] == "http_error"
    assert len(server.hits) == 3


def test_a_failing_http_node_is_not_retried_on_a_status_not_listed(
    server, allow_loopback
):
    call = node("call", "http_request", url=base(server) + "/flaky?fail=2")

    run = run_one(with_retry(call, max_attempts=3, delay_ms=10, on=[429]))

    assert run.status == "failed"
    assert (run.error["code"], run.error["status"]) == ("http_error", 503)
    assert len(server.hits) == 1


def test_a_throwing_code_node_is_retried_on_any_error_without_on():
    run = run_one(with_retry(code("boom", "throw new Error('nope');"), max_attempts=3))

    assert run.status == "failed"
    step = run.steps.get(node_id="boom")
    assert [a["status"] for a in step.attempts] == ["failed"] * 3
    assert "nope" in step.attempts[2]["error"]["message"]


def test_an_error_code_not_in_on_is_not_retried():
    step = with_retry(
        code("boom", "throw new Error('x');"), max_attempts=5, on=["dns_error"]
    )

    run = run_one(step)

    assert run.status == "failed"
    assert len(run.steps.get(node_id="boom").attempts) == 1


def test_the_wait_never_outlasts_the_run_deadline(settings):
    settings.RUN_TIMEOUT_SECONDS = 1
    step = with_retry(
        code("boom", "throw new Error('x');"), max_attempts=5, delay_ms=5000
    )

    started = time.monotonic()
    run = run_one(step)

    assert time.monotonic() - started < 1.0
    assert run.status == "failed"
    assert len(run.steps.get(node_id="boom").attempts) == 1


def test_a_node_without_retry_stores_no_attempts():
    run = run_one(code("fine", "return 1;"))

    assert run.steps.get(node_id="fine").attempts == []


def test_exponential_backoff_doubles_the_delay_up_to_a_minute():
    policy = RetryPolicy(max_attempts=10, backoff="exponential", delay_ms=1000)

    assert [policy.delay_after(n) for n in (1, 2, 3, 7, 8)] == [1, 2, 4, 60, 60]
    assert RetryPolicy(delay_ms=250).delay_after(4) == 0.25


# transactional_db: the run lasts past deferred.STORE_AFTER_SECONDS, so the lease
# thread stores it; on SQLite that insert waited out the busy timeout (20 s)
# behind the test's own open transaction.
def test_a_run_cancelled_while_its_node_waits_to_retry_stops_waiting(
    monkeypatch, transactional_db
):
    """The lease thread notes a cancel a moment after the first attempt failed;
    the run ends `cancelled` then, not after its 3 s waits."""
    from flows.engine import lease

    started = time.monotonic()
    monkeypatch.setattr(
        lease, "is_cancelled", lambda run_id: time.monotonic() - started > 0.3
    )
    step = with_retry(
        code("boom", "throw new Error('x');"), max_attempts=4, delay_ms=3000
    )

    run = run_one(step)

    assert time.monotonic() - started < 1.5
    assert (run.status, run.error["code"], run.error["node_id"]) == (
        "cancelled",
        "cancelled",
        "boom",
    )
    assert "waited to retry" in run.error["message"]
    failed = run.steps.get(node_id="boom")
    assert (failed.status, [a["status"] for a in failed.attempts]) == (
        "failed",
        ["failed"],
    )
