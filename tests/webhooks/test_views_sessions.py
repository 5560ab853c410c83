"""The public webhook path never touches sessions or users (issue 34, part 2,
item 8): a browser's cookie changes nothing a public endpoint does, and costs
no session read."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.db import SessionStore as DatabaseStore

from tests.webhooks.conftest import post_webhook, webhook_runs


class SessionStore(DatabaseStore):
    """A session backend that fails any read: the webhook must never read."""

    def load(self):
        raise AssertionError("the webhook read a session")


@pytest.fixture
def signed_in_browser(client, alice):
    client.force_login(alice)
    return client


def test_a_webhook_with_a_session_cookie_reads_no_session(
    signed_in_browser, hook_flow, settings
):
    settings.SESSION_ENGINE = "tests.webhooks.test_views_sessions"
    settings.REQUIRE_2FA_FOR_STAFF = True

    response = post_webhook(signed_in_browser, hook_flow, b'{"name": "Ada"}')

    assert response.status_code == 200
    assert "Cookie" not in response.get("Vary", "")
    assert "sessionid" not in response.cookies
    assert webhook_runs(hook_flow) == 1


def test_a_webhook_answers_the_same_with_and_without_a_session_cookie(
    signed_in_browser, client, hook_flow
):
    with_cookie = post_webhook(signed_in_browser, hook_flow, b'{"name": "Ada"}')
    signed_in_browser.cookies.clear()
    without = post_webhook(signed_in_browser, hook_flow, b'{"name": "Ada"}')

    varying = ("run_id", "duration")
    assert {k: v for k, v in with_cookie.json().items() if k not in varying} == {
        k: v for k, v in without.json().items() if k not in varying
    }
    assert with_cookie.get("Vary") == without.get("Vary")
