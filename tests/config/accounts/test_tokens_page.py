"""The API tokens page: signed in only, one's own live tokens, never a digest."""

from __future__ import annotations

from datetime import timedelta

from django.test import Client
from django.utils import timezone

from config.accounts.tokens.models import ApiToken


def test_anonymous_is_sent_to_sign_in(db):
    response = Client().get("/account/tokens/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_page_lists_only_ones_own_live_tokens(alice_client, alice, bob):
    later = timezone.now() + timedelta(days=1)
    mine, _ = ApiToken.issue(alice, "mine", ["flows:read"], later)
    ApiToken.issue(alice, "gone", ["flows:read"], later)[0].revoke()
    ApiToken.issue(bob, "bobs", ["flows:read"], later)

    page = alice_client.get("/account/tokens/").content.decode()

    assert "mine" in page and mine.prefix in page
    assert "gone" not in page and "bobs" not in page
    assert mine.digest not in page
