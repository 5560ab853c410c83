"""Every /api/ error is JSON in DESIGN.md section 3's envelope, never an HTML page."""

from __future__ import annotations

import pytest
from django.test import Client


@pytest.fixture
def client_no_raise(db):
    return Client(raise_request_exception=False)


@pytest.mark.urls("tests.config.urls_failing")
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


def test_method_not_allowed_on_auth_endpoint_is_json(api):
    response = api.delete("/api/auth/session")

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"


def test_validation_error_message_names_the_field(api):
    response = api.post("/api/flows", {}, format="json")

    assert response.json()["error"]["message"] == "name: This field is required."
