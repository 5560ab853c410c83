"""The API's session authentication: 401 when anonymous, CSRF as `csrf_failed`."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.authentication import enforce_csrf
from core.http.errors import CsrfFailed


@pytest.fixture
def browser(alice):
    """Alice's signed-in session, checked for CSRF like a real browser's."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)
    return client


def test_signed_in_unsafe_request_without_csrf_is_refused(browser, alice):
    response = browser.post("/api/flows", {"name": "x"}, format="json")

    assert response.status_code == 403
    assert response.json() == {
        "error": {"code": "csrf_failed", "message": "CSRF Failed: CSRF cookie not set."}
    }
    assert not alice.flows.exists()


def test_a_wrong_csrf_token_is_refused_with_djangos_reason(browser, alice):
    browser.get("/api/auth/csrf")

    response = browser.post(
        "/api/flows", {"name": "x"}, format="json", HTTP_X_CSRFTOKEN="x" * 32
    )

    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "csrf_failed"
    assert (
        error["message"]
        == "CSRF Failed: CSRF token from the 'X-Csrftoken' HTTP header incorrect."
    )
    assert not alice.flows.exists()


def test_the_csrf_token_lets_the_request_through(browser, alice):
    token = browser.get("/api/auth/csrf").json()["csrfToken"]

    response = browser.post(
        "/api/flows", {"name": "x"}, format="json", HTTP_X_CSRFTOKEN=token
    )

    assert response.status_code == 201
    assert alice.flows.get().name == "x"


def test_the_check_raises_csrf_failed(rf):
    with pytest.raises(CsrfFailed) as refused:
        enforce_csrf(rf.post("/api/auth/login"))

    assert refused.value.status_code == 403
    assert refused.value.error_code == "csrf_failed"


def test_anonymous_callers_get_401_not_403(db):
    response = APIClient().get("/api/flows")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


TOKEN = "k" * 32


@pytest.mark.parametrize(
    "content_type",
    ["multipart/form-data", "multipart/form-data; boundary=", "multipart/mixed"],
)
@pytest.mark.parametrize("path", ["/api/auth/login", "/api/auth/logout", "/api/flows"])
def test_a_multipart_body_without_a_boundary_is_unsupported_not_a_crash(
    browser, alice, path, content_type
):
    browser.cookies["csrftoken"] = TOKEN

    response = browser.post(
        path, b"--x\r\n", content_type=content_type, HTTP_X_CSRFTOKEN=TOKEN
    )

    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
    assert not alice.flows.exists()


@pytest.mark.parametrize("path", ["/api/auth/login", "/api/auth/logout"])
@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        pytest.param(b"x", "multipart/form-data", id="multipart-without-boundary"),
        # Django refuses to read an urlencoded form that is not UTF-8
        # (BadRequest) as the CSRF check looks in it for its token (S29).
        pytest.param(
            b"username=caf%E9",
            "application/x-www-form-urlencoded; charset=latin-1",
            id="form-not-in-utf-8",
        ),
    ],
)
def test_anonymous_sign_in_or_out_with_a_body_csrf_cannot_read_is_unsupported(
    db, path, body, content_type
):
    client = APIClient(enforce_csrf_checks=True)
    client.cookies["csrftoken"] = TOKEN

    response = client.post(
        path, body, content_type=content_type, HTTP_X_CSRFTOKEN=TOKEN
    )

    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
