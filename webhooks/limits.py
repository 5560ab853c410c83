"""What a webhook request must satisfy before it may start a run.

Each check raises one of the API's errors (config/http/errors.py) and costs as
little as possible: the size is refused from `Content-Length` before any byte of
the body is read, and the JSON checks that walk the payload only run when a
cheap scan of the raw bytes says they could find something.
"""

from __future__ import annotations

import json
import math

from django.conf import settings
from django.http import HttpRequest

from config.http import ratelimit
from config.http.errors import (
    InvalidJson,
    PayloadTooLarge,
    Throttled,
    UnsupportedMediaType,
    ValidationFailed,
)
from flows.storable import MAX_NESTING, Unstorable, check_storable

READ_CHUNK_BYTES = 64 * 1024


def check_content_type(request: HttpRequest) -> None:
    """415 unless the body is `application/json` (UTF-8 if a charset is named)."""
    charset = request.content_params.get("charset", "utf-8").lower()
    if request.content_type.lower() != "application/json" or charset not in (
        "utf-8",
        "utf8",
    ):
        raise UnsupportedMediaType(
            "Send the body as JSON with 'Content-Type: application/json'."
        )


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"The request body is larger than {limit} bytes.", details={"limit": limit}
    )


def read_body(request: HttpRequest, limit: int) -> bytes:
    """The raw body, never reading more than `limit` + 1 bytes of it.

    With a `Content-Length` the answer comes before the body is read. Without one
    (chunked transfer encoding, which gunicorn decodes) the body is read from the
    server's stream only when the server says the stream ends with the body
    (`wsgi.input_terminated`); otherwise there is nothing safe to read.
    """
    declared = request.META.get("CONTENT_LENGTH")
    if declared:
        try:
            length = int(declared)
        except ValueError:
            length = -1
        if length < 0:
            raise ValidationFailed("Content-Length is not a number of bytes.")
        if length > limit:
            raise _too_large(limit)
        return request.read(length)
    if not request.META.get("wsgi.input_terminated"):
        return b""
    stream = request.META["wsgi.input"]
    chunks: list[bytes] = []
    received = 0
    while received <= limit:
        chunk = stream.read(min(READ_CHUNK_BYTES, limit + 1 - received))
        if not chunk:
            break
        chunks.append(chunk)
        received += len(chunk)
    if received > limit:
        raise _too_large(limit)
    return b"".join(chunks)


def _refuse_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} does not fit a double")
    return value


def parse_json_object(body: bytes) -> dict:
    """The body as a JSON object; 400 for anything else, whatever the bytes are.

    The bytes are decoded as strict UTF-8 first: `json.loads(bytes)` would also
    take UTF-16, and lets CESU-encoded lone surrogates through.
    """
    try:
        text = body.decode("utf-8-sig")
        payload = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_finite_float
        )
    except RecursionError:
        raise ValidationFailed(
            f"The JSON body is nested more than {MAX_NESTING} levels deep."
        ) from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, huge numbers
        raise InvalidJson(f"The request body is not valid JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise ValidationFailed('The JSON body must be an object, like {"name": 1}.')
    try:
        check_storable(payload, text=text, what="The JSON body")
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None
    return payload


def check_rate(flow_id: str) -> None:
    """429 with Retry-After once the flow's webhook is over `WEBHOOK_RATE_LIMIT`.

    Counted in Django's cache, so with `REDIS_URL` the limit is shared by every
    process and machine serving the webhook.
    """
    rate = ratelimit.Rate.parse(settings.WEBHOOK_RATE_LIMIT)
    wait = ratelimit.hit(f"webhook:{flow_id}", rate)
    if wait is not None:
        raise Throttled(
            wait, f"This webhook accepts {rate.limit} requests per {rate.window} s."
        )
