"""`GET /metrics`: Prometheus' text format for whoever holds the token or address.

`METRICS_TOKEN` (sent as `Authorization: Bearer <token>`) or an address in
`METRICS_ALLOWED_IPS` opens it; anyone else, and everyone while neither is
set, gets the same 404 as an unknown path: the endpoint does not reveal that
it exists. The client address is REMOTE_ADDR, the proxy's address behind a
reverse proxy (docs/operations.md, "Metrics").
"""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache

from core.telemetry.metrics import exposition


def _has_token(request: HttpRequest) -> bool:
    token = settings.METRICS_TOKEN
    if not token:
        return False
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode()
    )


def _from_allowed_address(request: HttpRequest) -> bool:
    try:
        address = ipaddress.ip_address(request.META.get("REMOTE_ADDR", ""))
    except ValueError:
        return False
    return any(address in network for network in settings.METRICS_ALLOWED_IPS)


@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    if not (_has_token(request) or _from_allowed_address(request)):
        raise Http404()
    body, content_type = exposition()
    return HttpResponse(body, content_type=content_type)
