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


def _clip(value: str) -> str:
    return value[:MAX_VALUE_LENGTH]


def request_meta(request: HttpRequest, body_length: int) -> dict:
    """Client address, body length and type, user agent and the safe headers."""
    headers = {
        name: _clip(request.headers[name])
        for name in SAFE_HEADERS
        if name in request.headers
    }
    return {
        "method": request.method,
        "remote_addr": request.META.get("REMOTE_ADDR", ""),
        "content_length": body_length,
        "content_type": _clip(request.META.get("CONTENT_TYPE", "")),
        "user_agent": headers.get("user-agent", ""),
        "headers": headers,
    }
