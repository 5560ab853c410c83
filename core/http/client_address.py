"""The real client address of a request, for throttles that count per address.

Behind a reverse proxy every request comes from the proxy's address, so a limit
keyed on `REMOTE_ADDR` counts everyone together: one attacker could lock every
account out of signing in. Each proxy appends the address it received the request
from to `X-Forwarded-For`, so with `TRUSTED_PROXY_COUNT` proxies in front the
client is the entry that many places from the right. Entries further left were
written by the client itself and are never trusted; with the default of 0 the
header is ignored entirely (a directly exposed server must not believe it).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The address the nearest trusted proxy saw, else the peer's (`REMOTE_ADDR`)."""
    peer = request.META.get("REMOTE_ADDR", "") or "unknown"
    count = settings.TRUSTED_PROXY_COUNT
    if count <= 0:
        return peer
    entries = [
        entry.strip()
        for entry in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if entry.strip()
    ]
    if not entries:
        return peer
    # Fewer entries than proxies: every entry was still written by a trusted proxy.
    candidate = entries[-min(count, len(entries))]
    try:
        return str(ipaddress.ip_address(candidate))
    except ValueError:
        return peer


def limit_address(request: HttpRequest) -> str:
    """The client as per-address limits count it: an IPv4 address whole, an
    IPv6 address by its network of `RATE_LIMIT_IPV6_PREFIX` bits (64: one
    customer's allocation, every address of which is theirs to use, so keying
    on the full address gave one /64 an unlimited budget)."""
    address = client_address(request)
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address
    if parsed.version == 4 or parsed.ipv4_mapped is not None:
        return address
    prefix = settings.RATE_LIMIT_IPV6_PREFIX
    return str(ipaddress.ip_network(f"{parsed}/{prefix}", strict=False))
