"""The facts about a webhook request that are kept on its run (`FlowRun.request_meta`).

An allowlist, not a blocklist: only headers named here are stored, so cookies,
`Authorization`, `webhook-signature` and whatever credentials a sender invents
never reach the database, the admin or the run history.
"""

from __future__ import annotations

from django.http import HttpRequest

# Lower-case header names worth seeing when debugging a delivery.
SAFE_HEADERS = (
    "accept",
    "content-encoding",
    "user-agent",
    "webhook-id",
    "webhook-timestamp",
    "weir-hops",
    "x-forwarded-for",
    "x-forwarded-proto",
    "x-real-ip",
    "x-request-id",
    "x-github-delivery",
    "x-github-event",
    "x-gitlab-event",
)
MAX_VALUE_LENGTH = 512
# Where each header is in the WSGI environ (`request.META`), which
# `request.headers` reads too: one dict lookup a header, not the case-folding
# scan of `name in request.headers` (~7 µs of a webhook's CPU).
_META_KEYS = tuple(
    (name, "HTTP_" + name.upper().replace("-", "_")) for name in SAFE_HEADERS
)


def _clip(value: str) -> str:
    return value[:MAX_VALUE_LENGTH]


def request_meta(request: HttpRequest, body_length: int) -> dict:
    """Client address, body length and type, user agent and the safe headers."""
    environ = request.META
    headers = {name: _clip(environ[key]) for name, key in _META_KEYS if key in environ}
    return {
        "method": request.method,
        "remote_addr": environ.get("REMOTE_ADDR", ""),
        "content_length": body_length,
        "content_type": _clip(environ.get("CONTENT_TYPE", "")),
        "user_agent": headers.get("user-agent", ""),
        "headers": headers,
    }
