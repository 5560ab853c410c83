"""Expensive bodies (issue 13, item 12): a valid 741 KB body of 70,000 keys cost
seconds of server time (the run hands every value to the sandbox and stores it).
The webhook bounds the values in a body (`WEBHOOK_MAX_BODY_VALUES`) → 413.

Costs are the CPU time of the test's thread, in which the test client runs the
view: wall time on a shared, loaded machine says little.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.webhooks.conftest import post_webhook, webhook_runs


def many_keys(count: int) -> bytes:
    return json.dumps({f"k{i:05d}": i % 10 for i in range(count)}).encode()


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_body_of_70000_keys_is_refused_fast_without_a_run(client, hook_flow):
    body = many_keys(70_000)
    assert 700_000 < len(body) < 1_048_576  # within the byte limit

    started = time.thread_time()
    response = post_webhook(client, hook_flow, body)
    elapsed = time.thread_time() - started

    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "payload_too_large"
    assert error["details"] == {"values": 70_000, "limit": 10_000}
    assert elapsed < 1.0  # without the limit: 2.0 s of CPU here, 8.7 s wall, a 504
    assert webhook_runs(hook_flow) == 0


def test_a_long_array_counts_its_elements(client, hook_flow):
    body = json.dumps({"items": list(range(10_000))}).encode()

    response = post_webhook(client, hook_flow, body)

    assert response.status_code == 413
    assert response.json()["error"]["details"] == {"values": 10_001, "limit": 10_000}


def test_a_body_at_the_limit_runs(client, hook_flow, settings):
    settings.WEBHOOK_MAX_BODY_VALUES = 2_000
    body = json.dumps({"name": "Ada", "items": [{"n": i} for i in range(999)]})

    response = post_webhook(client, hook_flow, body.encode())

    assert response.status_code == 200
    assert response.json()["results"]["greet"] == {"greeting": "hi Ada"}
    assert webhook_runs(hook_flow) == 1


def test_commas_inside_strings_do_not_count(client, hook_flow, settings):
    settings.WEBHOOK_MAX_BODY_VALUES = 10
    body = json.dumps({"name": "Ada", "text": ",:[{" * 5_000}).encode()

    response = post_webhook(client, hook_flow, body)

    assert response.status_code == 200
    assert webhook_runs(hook_flow) == 1


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
@pytest.mark.parametrize(
    "body",
    [
        b'{"a": "' + b'\\",' * 300_000,  # escaped quotes, never terminated
        b'{"a": [' + b'"",' * 300_000,  # valid until the end
    ],
)
def test_broken_bodies_full_of_commas_are_answered_fast(client, hook_flow, body):
    started = time.thread_time()
    response = post_webhook(client, hook_flow, body)
    elapsed = time.thread_time() - started

    assert response.status_code in (400, 413)
    assert response.json()["error"]["code"] in ("invalid_json", "payload_too_large")
    assert elapsed < 1.0
    assert webhook_runs(hook_flow) == 0
