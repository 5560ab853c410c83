"""The outbound client's SSRF wall and limits, against a server on loopback."""

from __future__ import annotations

import ipaddress
import time

import pytest

from core.net import outbound
from core.net.outbound import OutboundError, is_public
from tests.http_server import base


def get(url: str, seconds: float = 5.0) -> dict:
    return outbound.request("GET", url, {}, None, time.monotonic() + seconds)


def refusal(url: str, seconds: float = 5.0) -> str:
    """The code of the OutboundError that GET `url` raises."""
    with pytest.raises(OutboundError) as refused:
        get(url, seconds)
    return refused.value.code


def test_loopback_is_refused_without_the_allowlist(server):
    assert refusal(base(server) + "/json") == "address_refused"
    assert server.hits == []


@pytest.mark.parametrize(
    "url",
    [
        "http://10.1.2.3/",
        "http://192.168.1.1/",
        "http://172.16.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://0.0.0.0/",
        "http://[::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[fe80::1]/",
        "http://[fd00::1]/",
        "http://[fec0::1]/",
        "http://[::127.0.0.1]/",
        "http://[::ffff:0:a9fe:a9fe]/",
        "http://[64:ff9b:1::a9fe:a9fe]/",
        "http://[2002:a9fe:a9fe::1]/",
        "http://localhost/",
        "http://224.0.0.1/",
        "http://100.64.0.1/",
    ],
)
def test_private_and_special_addresses_are_refused(url, settings):
    # An allowlist naming one address opens exactly that one.
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.2"]
    started = time.monotonic()

    assert refusal(url) == "address_refused"
    assert time.monotonic() - started < 2  # refused before any connection attempt


def test_a_redirect_to_a_refused_address_is_not_followed(server, allow_loopback):
    url = base(server) + "/redirect?to=http://169.254.169.254/latest"

    assert refusal(url) == "address_refused"
    assert server.hits == ["/redirect?to=http://169.254.169.254/latest"]


def test_a_redirect_to_another_loopback_address_is_refused(server, allow_loopback):
    target = f"http://[::1]:{server.server_address[1]}/json"

    assert refusal(base(server) + f"/redirect?to={target}") == "address_refused"


def test_the_allowlist_takes_networks_and_host_names(server, settings):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.0/8"]
    assert get(base(server) + "/json")["status"] == 200

    settings.HTTP_NODE_ALLOWLIST = ["localhost"]
    port = server.server_address[1]
    assert get(f"http://localhost:{port}/json")["status"] == 200
    assert server.hits == ["/json", "/json"]


def test_a_response_over_the_size_cap_is_refused(server, allow_loopback, settings):
    settings.HTTP_NODE_MAX_RESPONSE_BYTES = 1000

    assert refusal(base(server) + "/big") == "response_too_large"


def test_a_request_past_its_deadline_raises_outbound_timeout(server, allow_loopback):
    started = time.monotonic()

    with pytest.raises(outbound.OutboundTimeout):
        get(base(server) + "/slow", seconds=0.2)
    assert time.monotonic() - started < 1.5  # the server answers after 2 s


def test_an_unresolvable_host_fails_clearly(allow_loopback):
    assert refusal("http://no-such-host.invalid/") == "dns_error"


def test_a_caller_gets_a_user_agent_unless_it_names_its_own(server, allow_loopback):
    echo = outbound.request(
        "POST", base(server) + "/echo", {}, {"a": 1}, time.monotonic() + 5
    )["body"]
    named = outbound.request(
        "POST",
        base(server) + "/echo",
        {"user-agent": "mine"},
        "x",
        time.monotonic() + 5,
    )["body"]

    assert echo["user_agent"] == outbound.USER_AGENT
    assert echo["content_type"] == "application/json"
    assert named["user_agent"] == "mine"


@pytest.mark.parametrize(
    ("address", "public"),
    [
        ("8.8.8.8", True),
        ("2606:4700:4700::1111", True),
        ("127.0.0.1", False),
        ("10.0.0.1", False),
        ("169.254.169.254", False),
        ("0.0.0.0", False),
        ("224.0.0.1", False),
        ("100.64.0.1", False),
        ("::1", False),
        ("::", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("ff02::1", False),
        ("::ffff:10.0.0.1", False),
        ("64:ff9b::7f00:1", False),
        ("2002:7f00:1::", False),
        # IPv6 forms that embed an IPv4 address are refused whatever it is.
        ("::127.0.0.1", False),  # IPv4-compatible ::/96
        ("::a9fe:a9fe", False),  # ::169.254.169.254
        ("::8.8.8.8", False),
        ("::ffff:127.0.0.1", False),  # IPv4-mapped ::ffff:0:0/96
        ("::ffff:8.8.8.8", False),
        ("::ffff:0:7f00:1", False),  # IPv4-translated ::ffff:0:0:0/96
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 64:ff9b::/96
        ("64:ff9b::808:808", False),
        ("64:ff9b:1::a9fe:a9fe", False),  # local NAT64 64:ff9b:1::/48
        ("2002:808:808::1", False),  # 6to4 2002::/16
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", False),  # Teredo 2001::/32
        # Outside global unicast 2000::/3, or documentation inside it.
        ("fec0::1", False),  # deprecated site-local
        ("fd00::1", False),  # unique local
        ("febf::1", False),  # link-local
        ("ff0e::1", False),  # global-scope multicast
        ("100::1", False),  # discard-only
        ("2001:db8::1", False),  # documentation
        ("3fff::1", False),  # documentation (RFC 9637)
        ("2001:4860:4860::8888", True),
        ("2a00:1450:4001:80b::200e", True),
    ],
)
def test_only_global_unicast_addresses_are_public(address, public):
    assert is_public(ipaddress.ip_address(address)) is public


def test_a_refusal_does_not_tell_what_an_internal_name_resolves_to():
    with pytest.raises(OutboundError) as refused:
        get("http://localhost/")

    assert (
        "127.0.0.1" not in refused.value.message and "::1" not in refused.value.message
    )
    assert "localhost" in refused.value.message
