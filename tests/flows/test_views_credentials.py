"""The Credentials page: signed-in only, the user's own, values never in the page."""

from __future__ import annotations

import json
import re

import pytest

from tests.factories import make_credential

pytestmark = pytest.mark.django_db

SECRET = "tok-page-never-shows"


def page_data(html: str) -> list:
    match = re.search(
        r'<script id="credentials-data" type="application/json">(.*?)</script>',
        html,
        re.S,
    )
    assert match
    return json.loads(match.group(1))


def test_anonymous_is_sent_to_sign_in(client):
    response = client.get("/credentials/")

    assert response.status_code == 302
    assert "/login/" in response["Location"]


def test_it_lists_only_the_users_credentials_without_values(alice_client, alice, bob):
    make_credential(alice, "stripe", secrets={"token": SECRET})
    make_credential(bob, "bobs_key")

    response = alice_client.get("/credentials/")

    assert response.status_code == 200
    html = response.content.decode()
    assert [item["name"] for item in page_data(html)] == ["stripe"]
    assert page_data(html)[0]["has_value"] is True
    assert SECRET not in html
    assert "bobs_key" not in html
    assert "js/credentials.js" in html


def test_the_site_navigation_links_to_it(alice_client):
    response = alice_client.get("/")

    assert 'href="/credentials/"' in response.content.decode()
