"""Single sign-on against a real OpenID provider (tests/oidc_provider.py),
started for each test, with Weir's settings pointing at it."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.audit.models import AuditEvent
from tests.oidc_provider import CLIENT_ID, CLIENT_SECRET, OidcProvider, callback_path

CALLBACK = "http://testserver/login/oidc/callback/"


@pytest.fixture
def provider():
    started = OidcProvider().start()
    started.redirect_uris.append(CALLBACK)
    yield started
    started.stop()


@pytest.fixture
def sso(provider, settings):
    """Weir set up for single sign-on with `provider` (named "Test provider")."""
    settings.OIDC_ISSUER = provider.url
    settings.OIDC_CLIENT_ID = CLIENT_ID
    settings.OIDC_CLIENT_SECRET = CLIENT_SECRET
    settings.OIDC_NAME = "Test provider"
    settings.OIDC_GROUP_ROLES = []
    return provider


@pytest.fixture
def visitor(db):
    return Client()


@pytest.fixture
def sign_in_with(sso, visitor):
    """`sign_in_with("ada")`: the whole round trip, the answer of Weir's
    callback returned (`next` passes a page to land on)."""

    def round_trip(username, next_url=""):
        start = visitor.get("/login/oidc/", {"next": next_url} if next_url else {})
        assert start.status_code == 302
        callback = sso.sign_in(start["Location"], username)
        return visitor.get(callback_path(callback))

    return round_trip


def signed_in_user(client):
    """Who the client's session belongs to (None when signed out)."""
    answer = client.get("/api/auth/session")
    return answer.json()["username"] if answer.status_code == 200 else None


def audit_actions(**filters) -> list[str]:
    return list(
        AuditEvent.objects.filter(**filters)
        .order_by("at")
        .values_list("action", flat=True)
    )
