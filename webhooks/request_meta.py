"""The facts about a webhook request that are kept on its run (`FlowRun.request_meta`).

An allowlist, not a blocklist: only headers named here (or, instead, in the
webhook node's `keep_headers`) are stored, so cookies, `Authorization`,
`webhook-signature` and whatever credentials a sender invents never reach the
database, the admin or the run history unless the flow's author names them.
The method, the path after the flow's id, the query and the kept headers are
what a run's templates see as `run.request` (flows/engine/runner.py).
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


# The two headers WSGI keeps without the HTTP_ prefix.
_UNPREFIXED = {"content-type": "CONTENT_TYPE", "content-length": "CONTENT_LENGTH"}


def _keys(names: list[str]) -> tuple[tuple[str, str], ...]:
    lowered = (name.strip().lower() for name in names)
    return tuple(
        (name, _UNPREFIXED.get(name) or "HTTP_" + name.upper().replace("-", "_"))
        for name in lowered
    )


def request_meta(
    request: HttpRequest,
    body_length: int,
    *,
    path: str = "",
    query: dict | None = None,
    keep_headers: list[str] | None = None,
) -> dict:
    """Client address, method, path, query, body length and type, user agent
    and the kept headers (the safe ones unless `keep_headers` names others)."""
    environ = request.META
    keys = _keys(keep_headers) if keep_headers else _META_KEYS
    headers = {name: _clip(environ[key]) for name, key in keys if key in environ}
    return {
        "method": request.method,
        "path": path,
        "query": query or {},
        "remote_addr": environ.get("REMOTE_ADDR", ""),
        "content_length": body_length,
        "content_type": _clip(environ.get("CONTENT_TYPE", "")),
        "user_agent": _clip(environ.get("HTTP_USER_AGENT", "")),
        "headers": headers,
    }
