"""Which sites may use a published agent: its own pages, and the agent's
allowed origins. Browsers enforce it; the server tells them.

- The hosted page's `frame-ancestors` lists `'self'` and the allowed origins,
  so only they may show it in a frame (the widget's panel).
- The visitor API answers CORS for the allowed origins only, and refuses a
  request whose `Origin` is neither ours nor allowed (403 `origin_not_allowed`):
  a page elsewhere cannot spend the agent's budget from its visitors' browsers.
A request without `Origin` (curl, a server) is no browser page's doing and
passes: the page itself is public, the rates and the budget still hold.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.http import HttpRequest, HttpResponse

from agents.public.session import HEADER
from core.http.errors import ApiError

CORS_MAX_AGE = 600


class OriginNotAllowed(ApiError):
    status_code = 403
    default_code = "origin_not_allowed"
    default_detail = "This site may not use this chat."


def is_own(request: HttpRequest, origin: str) -> bool:
    """Whether `origin` is Weir's own: its host and port are the request's.
    The scheme is not compared, so a TLS proxy that does not say so
    (SECURE_PROXY_SSL_HEADER) does not turn Weir's own page away."""
    return urlsplit(origin).netloc == request.get_host()


def cross_origin(request: HttpRequest, agent) -> str | None:
    """The request's `Origin` when it is another allowed site's; None when it
    is ours or absent; OriginNotAllowed when a page elsewhere sent it."""
    origin = request.headers.get("Origin")
    if origin is None or is_own(request, origin):
        return None
    if origin in agent.origins():
        return origin
    raise OriginNotAllowed(f"{origin} is not among the sites allowed to use this chat.")


def allow(response: HttpResponse, origin: str | None) -> HttpResponse:
    """CORS headers for an allowed `origin` (no credentials: the token is a header)."""
    response["Vary"] = "Origin"
    if origin is not None:
        response["Access-Control-Allow-Origin"] = origin
        response["Access-Control-Allow-Methods"] = "GET, POST, OPTIONS"
        response["Access-Control-Allow-Headers"] = f"Content-Type, Accept, {HEADER}"
        response["Access-Control-Max-Age"] = str(CORS_MAX_AGE)
    return response


def frame_ancestors(response: HttpResponse, agent) -> HttpResponse:
    """The page may be framed by us and the agent's allowed origins only
    (django-csp's per-response replacement; X-Frame-Options would forbid any
    frame, so it is left off this page)."""
    response._csp_replace = {
        "frame-ancestors": ["'self'", *sorted(agent.origins())],
    }
    response.xframe_options_exempt = True
    return response
