"""Locking an account out from behind the TLS proxy (issue 13, item 4).

Every request reaches the app from the proxy's address, so a throttle keyed on
`REMOTE_ADDR` let one attacker keep anyone (admins too) out with 5 guesses per
5 minutes. The throttle keys on username and the real client address, read
from `X-Forwarded-For` through `TRUSTED_PROXY_COUNT` proxies.
"""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import PASSWORD

PROXY = "10.0.0.2"
ATTACKER = "203.0.113.9"
ALICE_HOME = "198.51.100.7"


@pytest.fixture
def behind_one_proxy(settings):
    settings.LOGIN_FAILURE_RATE = "3/300s"
    settings.TRUSTED_PROXY_COUNT = 1


def via_proxy(client_address: str, spoofed: str = "") -> dict:
    """What the app sees when the proxy appends the client's address."""
    forwarded = f"{spoofed}, {client_address}" if spoofed else client_address
    return {"REMOTE_ADDR": PROXY, "HTTP_X_FORWARDED_FOR": forwarded}


def page_login(path, password, **meta):
    client = Client()
    response = client.post(path, {"username": "alice", "password": password}, **meta)
    return response, client


def api_login(password, **meta):
    client = APIClient(enforce_csrf_checks=True)
    token = client.get("/api/auth/csrf", **meta).json()["csrfToken"]
    return client.post(
        "/api/auth/login",
        {"username": "alice", "password": password},
        format="json",
        HTTP_X_CSRFTOKEN=token,
        **meta,
    )


def test_an_attacker_behind_the_proxy_cannot_lock_alice_out_of_the_api(
    alice, behind_one_proxy
):
    for _ in range(4):
        api_login("wrong", **via_proxy(ATTACKER))
    assert api_login(PASSWORD, **via_proxy(ATTACKER)).status_code == 429

    response = api_login(PASSWORD, **via_proxy(ALICE_HOME))

    assert response.status_code == 200
    assert response.json()["username"] == "alice"


def test_an_attacker_cannot_lock_alice_out_of_the_login_page(alice, behind_one_proxy):
    for _ in range(4):
        page_login("/login/", "wrong", **via_proxy(ATTACKER))

    response, client = page_login("/login/", PASSWORD, **via_proxy(ALICE_HOME))

    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_a_spoofed_forwarded_address_does_not_escape_the_throttle(
    alice, behind_one_proxy
):
    for number in range(3):
        api_login("wrong", **via_proxy(ATTACKER, spoofed=f"192.0.2.{number}"))

    response = api_login(PASSWORD, **via_proxy(ATTACKER, spoofed="192.0.2.200"))

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert int(response["Retry-After"]) > 0


def test_without_trusted_proxies_the_forwarded_header_is_ignored(alice, settings):
    settings.LOGIN_FAILURE_RATE = "3/300s"
    for number in range(3):
        api_login(
            "wrong", REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=f"192.0.2.{number}"
        )

    response = api_login(
        PASSWORD, REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR="192.0.2.9"
    )

    assert response.status_code == 429
