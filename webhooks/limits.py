"""What a webhook request must satisfy before it may start a run.

Each check raises one of the API's errors (core/http/errors.py) and costs as
little as possible: the size is refused from `Content-Length` before any byte of
the body is read, and the JSON checks that walk the payload only run when a
cheap scan of the raw bytes says they could find something.
"""

from __future__ import annotations

import functools
import json
import math
import re

from django.conf import settings
from django.http import HttpRequest

from core.http import ratelimit, ratelimit_batched
from core.http.client_address import limit_address
from core.http.errors import (
    InvalidJson,
    LoopDetected,
    NotFound,
    PayloadTooLarge,
    Throttled,
    UnsupportedMediaType,
    ValidationFailed,
)
from core.net.outbound import HOPS_HEADER
from core.storable import MAX_NESTING, Unstorable, check_storable

READ_CHUNK_BYTES = 64 * 1024
# A JSON string (unrolled so each run of plain characters is one regex step; an
# unterminated one runs to the end, so no input makes the scan quadratic), and
# an opening bracket whose container holds at least one value.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\Z)')
_NON_EMPTY_CONTAINER = re.compile(r"[\[{](?![ \t\n\r]*[\]}])")


def check_json_charset(request: HttpRequest) -> None:
    """415 when a JSON body names a charset other than UTF-8."""
    charset = request.content_params.get("charset", "utf-8").lower()
    if charset not in ("utf-8", "utf8"):
        raise UnsupportedMediaType("Send JSON as UTF-8.")


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


# One decoder for every request: `json.loads` with these hooks builds a new
# decoder and its scanner on each call. Shared as `json.loads`'s own default
# decoder is: it keeps no state between calls.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def parse_json(body: bytes):
    """The body as a JSON value; 400 for anything else, whatever the bytes are.

    The bytes are decoded as strict UTF-8 first: `json.loads(bytes)` would also
    take UTF-16, and lets CESU-encoded lone surrogates through.
    """
    try:
        text = body.decode("utf-8-sig")
        check_value_count(text)
        payload = _DECODER.decode(text)
    except RecursionError:
        raise ValidationFailed(
            f"The JSON body is nested more than {MAX_NESTING} levels deep."
        ) from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, huge numbers
        raise InvalidJson(f"The request body is not valid JSON: {exc}") from None
    try:
        check_storable(payload, text=text, what="The JSON body")
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None
    return payload


def parse_json_object(body: bytes) -> dict:
    """`parse_json`, refusing anything but an object (a resume link's body)."""
    payload = parse_json(body)
    if not isinstance(payload, dict):
        raise ValidationFailed('The JSON body must be an object, like {"name": 1}.')
    return payload


def check_value_count(text: str) -> None:
    """413 when the JSON text holds more than `WEBHOOK_MAX_BODY_VALUES` values.

    Each object member and each array element counts one, at any depth. Bytes
    alone do not bound the work: a run hands every value to the sandbox and to
    the database, and 70,000 one-digit members fit in 741 KB but cost seconds.
    Counted on the text, before parsing (itself the costliest step left): every
    value but the first of a non-empty container follows a comma. Commas plus
    opening brackets (C-speed counts) bound that, so only a text over the
    bound has its strings cut out and is counted exactly. On text that is not
    JSON the count means little, but such a body is refused either way.
    """
    limit = settings.WEBHOOK_MAX_BODY_VALUES
    if text.count(",") + text.count("[") + text.count("{") <= limit:
        return
    structure = _JSON_STRING.sub("", text)
    count = structure.count(",") + len(_NON_EMPTY_CONTAINER.findall(structure))
    if count > limit:
        raise PayloadTooLarge(
            f"The JSON body holds {count} values; the limit is {limit} "
            "(each object member and array element counts one).",
            details={"values": count, "limit": limit},
        )


def check_rate(flow_id: str) -> None:
    """429 with Retry-After once the flow's webhook is over `WEBHOOK_RATE_LIMIT`.

    Counted in Django's cache, so with `REDIS_URL` the limit is shared by every
    process and machine serving the webhook; each process adds its count in
    batches (core/http/ratelimit_batched.py), the hot path's saving.
    """
    rate = _rate(settings.WEBHOOK_RATE_LIMIT)
    wait = ratelimit_batched.hit(f"webhook:{flow_id}", rate)
    if wait is not None:
        raise Throttled(
            wait, f"This webhook accepts {rate.limit} requests per {rate.window} s."
        )


@functools.lru_cache(maxsize=8)
def _rate(text: str) -> ratelimit.Rate:
    """The setting's rate, parsed once per value (each request read it anew)."""
    return ratelimit.Rate.parse(text)


def check_hops(request: HttpRequest) -> int:
    """The request's place in a chain of webhook runs; 508 past `WEBHOOK_MAX_HOPS`.

    Every http_request node sends `Weir-Hops` (its run's own count plus one,
    see core/net/outbound.py), so a flow calling its own webhook, or two flows
    calling each other, stop after `WEBHOOK_MAX_HOPS` runs. A request from
    outside has no header (or one a flow could not have sent): it is hop 0.
    """
    text = request.headers.get(HOPS_HEADER, "").strip()
    hops = int(text) if text.isascii() and text.isdigit() and len(text) < 6 else 0
    if hops >= settings.WEBHOOK_MAX_HOPS:
        raise LoopDetected(
            f"This webhook was called by a chain of {hops} flow runs; the limit "
            f"is {settings.WEBHOOK_MAX_HOPS} (WEBHOOK_MAX_HOPS). Check the flows' "
            "http_request nodes for a flow that calls itself.",
            details={"hops": hops, "limit": settings.WEBHOOK_MAX_HOPS},
        )
    return hops


def miss(request: HttpRequest) -> NotFound | Throttled:
    """The error for an unknown flow id: 404, or 429 once the client's address
    has missed more than `WEBHOOK_MISS_RATE` times in the window.

    Only misses count, so a sender whose address a scanner shares (a NAT, a
    hosting provider's delivery pool) still reaches its real flows.
    """
    rate = ratelimit.Rate.parse(settings.WEBHOOK_MISS_RATE)
    wait = ratelimit.hit(f"webhook-miss:{limit_address(request)}", rate)
    if wait is None:
        return NotFound()
    return Throttled(
        wait,
        f"Too many requests for unknown webhooks from your address "
        f"(limit {rate.limit} per {rate.window} s).",
    )
