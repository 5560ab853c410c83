"""Every /api/ error is JSON in docs/api.md's error envelope, never an HTML page."""

from __future__ import annotations

import pytest
from django.test import Client

failing_urls = pytest.mark.urls("tests.core.http.urls_failing")


@pytest.fixture
def client_no_raise(db):
    return Client(raise_request_exception=False)


@failing_urls
@pytest.mark.parametrize("path", ["/api/boom", "/api/plain-boom"])
def test_unexpected_exception_is_internal_error_without_traceback(
    client_no_raise, path
):
    response = client_no_raise.get(path)

    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    assert error["code"] == "internal_error"
    assert "hunter2" not in response.content.decode()
    assert "Traceback" not in response.content.decode()


@failing_urls
@pytest.mark.parametrize("path", ["/api/plain-conflict", "/plain-conflict/"])
def test_an_api_error_raised_by_a_plain_view_answers_the_envelope(db, path):
    response = Client().get(path)

    assert response.status_code == 409
    assert response["Content-Type"] == "application/json"
    assert response["Retry-After"] == "30"
    assert response.json() == {
        "error": {
            "code": "conflict",
            "message": "Order 7 is already shipped.",
            "details": {"order": 7},
        }
    }


@pytest.mark.parametrize("debug", [False, True])
def test_unknown_api_path_is_a_json_404(client_no_raise, settings, debug):
    settings.DEBUG = debug

    response = client_no_raise.get("/api/no/such/thing")

    assert response.status_code == 404
    assert response.json() == {"error": {"code": "not_found", "message": "Not found."}}


def test_unknown_page_outside_the_api_is_html(client_no_raise):
    response = client_no_raise.get("/no/such/page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_method_not_allowed_on_auth_endpoint_is_json_and_names_the_methods(api):
    response = api.delete("/api/auth/session")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert set(response["Allow"].split(", ")) == {"GET", "OPTIONS"}


def test_validation_error_message_names_the_field(api):
    response = api.post("/api/flows", {}, format="json")

    assert response.json()["error"]["message"] == "name: This field is required."


@failing_urls
def test_a_plain_api_view_refused_by_djangos_csrf_check_is_csrf_failed(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/api/plain-conflict")

    assert response.status_code == 403
    assert response.json() == {
        "error": {"code": "csrf_failed", "message": "CSRF Failed: CSRF cookie not set."}
    }


@failing_urls
def test_a_page_refused_by_djangos_csrf_check_keeps_djangos_page(alice):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)

    response = client.post("/plain-conflict/")

    assert response.status_code == 403
    assert response["Content-Type"].startswith("text/html")
