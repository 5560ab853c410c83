"""What a webhook request must satisfy before it may run: type, size, JSON, rate.

Through Django's test client; what only a real server shows is in
test_views_over_http.py.
"""

from __future__ import annotations

import io
import json

import pytest

from core.storable import MAX_NESTING
from tests.webhooks.conftest import post_webhook, webhook_runs


def nested(depth: int) -> bytes:
    """A JSON object whose innermost array sits `depth` containers deep."""
    return b'{"a": ' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


def test_json_with_a_latin1_charset_is_unsupported(client, hook_flow):
    response = post_webhook(
        client, hook_flow, b"{}", "application/json; charset=latin-1"
    )

    assert response.status_code == 415


def test_declared_length_over_the_limit_is_refused_before_reading(
    client, hook_flow, settings
):
    settings.WEBHOOK_MAX_BODY_BYTES = 10
    body = json.dumps({"name": "a long enough name"}).encode()

    response = post_webhook(client, hook_flow, body)

    assert response.status_code == 413
    assert response.json()["error"]["code"] == "payload_too_large"


class CountingStream(io.BytesIO):
    """A request stream that remembers how many bytes the view pulled from it."""

    def __init__(self, data: bytes):
        super().__init__(data)
        self.bytes_read = 0

    def read(self, size=-1):
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk


def test_streamed_body_without_length_is_cut_off_after_limit_plus_one_bytes(
    client, hook_flow, settings
):
    settings.WEBHOOK_MAX_BODY_BYTES = 1000
    stream = CountingStream(b'{"a": "' + b"x" * 1_000_000 + b'"}')

    response = client.generic(
        "POST",
        f"/api/webhooks/{hook_flow.id}",
        CONTENT_TYPE="application/json",
        **{"wsgi.input": stream, "wsgi.input_terminated": True},
    )

    assert response.status_code == 413
    assert stream.bytes_read == 1001
    assert webhook_runs(hook_flow) == 0


def test_streamed_body_without_a_terminated_stream_is_not_read(client, hook_flow):
    stream = CountingStream(b'{"a": 1}')

    response = client.generic(
        "POST",
        f"/api/webhooks/{hook_flow.id}",
        CONTENT_TYPE="application/json",
        **{"wsgi.input": stream},
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert stream.bytes_read == 0


@pytest.mark.parametrize("length", ["lots", "-5"])
def test_content_length_that_is_not_a_byte_count_is_a_validation_error(
    client, hook_flow, length
):
    response = post_webhook(client, hook_flow, b"{}", CONTENT_LENGTH=length)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"{'single': 'quotes'}",
        b'{"n": NaN}',
        b'{"n": Infinity}',
        b'{"n": 1e999}',
        b'{"n": ' + b"9" * 5000 + b"}",
        b'\xff{"bad": "utf-8"}',
        b'{"a": 1} trailing',
        b'{"name": "Ada",',
    ],
    ids=[
        "empty",
        "quotes",
        "nan",
        "infinity",
        "huge-float",
        "huge-int",
        "utf8",
        "trail",
        "truncated",
    ],
)
def test_bodies_that_are_not_strict_json_are_invalid_json(client, hook_flow, body):
    response = post_webhook(client, hook_flow, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_json"
    assert webhook_runs(hook_flow) == 0


def test_a_json_null_body_is_refused(client, hook_flow):
    response = post_webhook(client, hook_flow, b"null")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert "null" in response.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


def test_nesting_one_level_past_the_limit_is_refused(client, hook_flow):
    response = post_webhook(client, hook_flow, nested(MAX_NESTING + 1))

    assert response.status_code == 400
    assert "nested" in response.json()["error"]["message"]
    assert webhook_runs(hook_flow) == 0


@pytest.mark.parametrize(
    "body",
    [
        rb'{"a": "nul \u0000 inside"}',
        rb'{"\u0000": 1}',
        rb'{"a": ["\ud800"]}',
        b'{"a": "\xed\xa0\x80"}',
        '{"a": "\\u0000"}'.encode("utf-16"),
    ],
    ids=["nul-value", "nul-key", "lone-surrogate", "raw-surrogate-bytes", "utf-16"],
)
def test_strings_the_database_cannot_store_are_refused(client, hook_flow, body):
    response = post_webhook(client, hook_flow, body)

    assert response.status_code == 400
    assert response.json()["error"]["code"] in ("validation_error", "invalid_json")
    assert webhook_runs(hook_flow) == 0


def test_over_the_rate_limit_is_throttled_with_retry_after(client, hook_flow, settings):
    settings.WEBHOOK_RATE_LIMIT = "2/d"
    # Malformed bodies are refused before counting, so they spend no budget.
    post_webhook(client, hook_flow, b"nope")
    statuses = [
        post_webhook(client, hook_flow, json.dumps({"n": i})).status_code
        for i in range(2)
    ]

    response = post_webhook(client, hook_flow, b'{"n": 3}')

    assert statuses == [200, 200]
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 86400
    assert webhook_runs(hook_flow) == 2
