"""Signing in and out through /api/auth/* (docs/api.md, section 1)."""

from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.test import APIClient

from tests.factories import PASSWORD


@pytest.fixture
def browser(db):
    """A client that enforces CSRF like a real browser session would."""
    return APIClient(enforce_csrf_checks=True)


def csrf_token(client) -> str:
    response = client.get("/api/auth/csrf")
    assert response.status_code == 200
    return response.json()["csrfToken"]


def test_csrf_endpoint_sets_the_cookie_and_returns_the_token(browser):
    response = browser.get("/api/auth/csrf")

    assert response.status_code == 200
    assert response.json()["csrfToken"]
    assert "csrftoken" in response.cookies


def test_login_with_csrf_returns_the_user_and_a_session(browser, alice):
    token = csrf_token(browser)

    response = browser.post(
        "/api/auth/login",
        {"username": "alice", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )

    assert response.status_code == 200
    assert response.json() == {"id": alice.id, "username": "alice"}
    assert browser.get("/api/auth/session").json()["username"] == "alice"


def test_session_cookie_is_httponly_and_samesite_lax(browser, alice):
    token = csrf_token(browser)
    response = browser.post(
        "/api/auth/login",
        {"username": "alice", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )

    cookie = response.cookies["sessionid"]
    assert cookie["httponly"]
    assert cookie["samesite"] == "Lax"


def test_login_without_csrf_token_is_refused(browser, alice):
    browser.get("/api/auth/csrf")

    response = browser.post(
        "/api/auth/login", {"username": "alice", "password": PASSWORD}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "csrf_failed"
    assert browser.get("/api/auth/session").status_code == 401


def test_wrong_password_is_invalid_credentials(browser, alice):
    token = csrf_token(browser)

    response = browser.post(
        "/api/auth/login",
        {"username": "alice", "password": "nope"},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_credentials"


def test_login_without_password_is_a_validation_error(browser, alice):
    token = csrf_token(browser)

    response = browser.post(
        "/api/auth/login", {"username": "alice"}, format="json", HTTP_X_CSRFTOKEN=token
    )

    assert response.status_code == 400
    body = response.json()["error"]
    assert body["code"] == "validation_error"
    assert "password" in body["details"]


@override_settings(LOGIN_FAILURE_RATE="3/60s")
def test_repeated_failed_logins_are_throttled_with_retry_after(browser, alice):
    token = csrf_token(browser)
    attempt = {"username": "alice", "password": "wrong"}
    for _ in range(3):
        response = browser.post(
            "/api/auth/login", attempt, format="json", HTTP_X_CSRFTOKEN=token
        )
        assert response.status_code == 400

    response = browser.post(
        "/api/auth/login",
        {"username": "alice", "password": PASSWORD},
        format="json",
        HTTP_X_CSRFTOKEN=token,
    )

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60


def test_logout_ends_the_session(api):
    response = api.post("/api/auth/logout")

    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert api.get("/api/auth/session").status_code == 401


def test_session_for_anonymous_is_401_not_authenticated(anon):
    response = anon.get("/api/auth/session")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
