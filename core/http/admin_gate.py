"""The admin only from ADMIN_ALLOWED_NETWORKS, when that setting names any.

Outside them the admin's path (ADMIN_URL) answers 404 as if it did not exist:
its sign-in page is a target for password guessing, and staff reach it from
known networks (an office, a VPN). The address is the real client's
(`client_address`, through TRUSTED_PROXY_COUNT proxies).
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import Http404

from core.http.client_address import client_address


class AdminGateMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        networks = settings.ADMIN_ALLOWED_NETWORKS
        gated = networks and request.path.startswith("/" + settings.ADMIN_URL)
        if gated and not _inside(client_address(request), networks):
            raise Http404("No such page.")
        return self.get_response(request)


def _inside(address: str, networks: list[str]) -> bool:
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(parsed in ipaddress.ip_network(n, strict=False) for n in networks)
