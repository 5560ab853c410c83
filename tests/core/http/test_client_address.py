"""The real client address behind `TRUSTED_PROXY_COUNT` proxies."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from core.http.client_address import client_address


def request(remote="10.0.0.2", forwarded=None):
    meta = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    return RequestFactory().get("/", **meta)


def test_without_trusted_proxies_it_is_the_peer_address(settings):
    settings.TRUSTED_PROXY_COUNT = 0

    assert client_address(request(forwarded="203.0.113.9")) == "10.0.0.2"


@pytest.mark.parametrize(
    ("count", "forwarded", "expected"),
    [
        (1, "203.0.113.9", "203.0.113.9"),
        (1, "192.0.2.1, 203.0.113.9", "203.0.113.9"),
        (2, "192.0.2.1, 203.0.113.9, 10.0.0.1", "203.0.113.9"),
        (1, "2001:db8::1", "2001:db8::1"),
    ],
)
def test_it_reads_the_address_the_nearest_trusted_proxy_saw(
    settings, count, forwarded, expected
):
    settings.TRUSTED_PROXY_COUNT = count

    assert client_address(request(forwarded=forwarded)) == expected


@pytest.mark.parametrize("forwarded", [None, "", "not-an-address", " , "])
def test_a_missing_or_garbled_header_falls_back_to_the_peer(settings, forwarded):
    settings.TRUSTED_PROXY_COUNT = 1

    assert client_address(request(forwarded=forwarded)) == "10.0.0.2"


def test_limits_key_ipv6_on_its_64_and_ipv4_on_the_address(settings):
    from core.http.client_address import limit_address

    settings.TRUSTED_PROXY_COUNT = 0

    assert limit_address(request("2001:db8:1:2::abcd")) == "2001:db8:1:2::/64"
    assert limit_address(request("203.0.113.9")) == "203.0.113.9"
    assert limit_address(request("::ffff:203.0.113.9")) == "::ffff:203.0.113.9"


def test_the_ipv6_prefix_length_is_a_setting(settings):
    from core.http.client_address import limit_address

    settings.RATE_LIMIT_IPV6_PREFIX = 128

    assert limit_address(request("2001:db8:1:2::abcd")) == "2001:db8:1:2::abcd/128"
