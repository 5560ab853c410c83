"""The API's error classes and the one envelope every exception is rendered in."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions

from core.http.errors import (
    CsrfFailed,
    MethodNotAllowed,
    NotAuthenticated,
    NotFound,
    Throttled,
    Unavailable,
    error_response_for,
)


def rendered(exc) -> tuple[int, dict, dict]:
    response = error_response_for(exc)
    headers = {
        name: response[name] for name in ("Allow", "Retry-After") if name in response
    }
    return response.status_code, json.loads(response.content), headers


def test_method_not_allowed_names_the_allowed_methods():
    status, body, headers = rendered(MethodNotAllowed(["POST"], "POST only."))

    assert status == 405
    assert body == {"error": {"code": "method_not_allowed", "message": "POST only."}}
    assert headers == {"Allow": "POST"}


@pytest.mark.parametrize("wait, header", [(0.2, "1"), (1.0, "1"), (59.1, "60")])
def test_throttled_rounds_retry_after_up_to_whole_seconds(wait, header):
    status, body, headers = rendered(Throttled(wait))

    assert status == 429
    assert body["error"]["code"] == "throttled"
    assert headers == {"Retry-After": header}


def test_unavailable_is_a_503_with_retry_after():
    status, body, headers = rendered(Unavailable(0.3, "Busy."))

    assert status == 503
    assert body == {"error": {"code": "unavailable", "message": "Busy."}}
    assert headers == {"Retry-After": "1"}


def test_csrf_failed_is_a_403_with_the_reason():
    status, body, _ = rendered(CsrfFailed("CSRF token missing."))

    assert status == 403
    assert body == {
        "error": {"code": "csrf_failed", "message": "CSRF Failed: CSRF token missing."}
    }


@pytest.mark.parametrize(
    "exc",
    [
        DjangoPermissionDenied("CSRF Failed: no"),
        exceptions.PermissionDenied("CSRF Failed"),
    ],
)
def test_other_permission_errors_are_permission_denied_whatever_they_say(exc):
    status, body, _ = rendered(exc)

    assert status == 403
    assert body["error"]["code"] == "permission_denied"


@pytest.mark.parametrize(
    "exc", [Http404("secret path"), exceptions.NotFound(), NotFound()]
)
def test_every_not_found_is_the_same_404(exc):
    assert rendered(exc)[:2] == (
        404,
        {"error": {"code": "not_found", "message": "Not found."}},
    )


def test_not_authenticated_is_401():
    status, body, _ = rendered(NotAuthenticated("Sign the request."))

    assert status == 401
    assert body == {
        "error": {"code": "not_authenticated", "message": "Sign the request."}
    }


def test_a_body_over_djangos_limit_is_413_naming_the_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000

    status, body, _ = rendered(RequestDataTooBig())

    assert status == 413
    assert body["error"]["code"] == "payload_too_large"
    assert body["error"]["details"] == {"limit": 1000}


def test_drf_validation_errors_keep_their_fields_as_details():
    status, body, _ = rendered(exceptions.ValidationError({"name": ["Too long."]}))

    assert status == 400
    assert body == {
        "error": {
            "code": "validation_error",
            "message": "name: Too long.",
            "details": {"name": ["Too long."]},
        }
    }


def test_an_unexpected_exception_is_a_500_that_says_nothing_of_it():
    status, body, _ = rendered(KeyError("database password is hunter2"))

    assert status == 500
    assert body["error"]["code"] == "internal_error"
    assert "hunter2" not in json.dumps(body)
