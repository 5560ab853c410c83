"""The API's errors and their one envelope (docs/api.md, section 2).

Views raise; they never build an error response. Every `ApiError` subclass
carries its status, code and headers, and `error_response_for` turns any
exception (ours, DRF's or Django's) into the JSON envelope. `core.http.handlers`
calls it from DRF's exception handler and from the middleware, so there is one
way an error reaches the client.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from rest_framework import exceptions

STATUS_CODES = {
    400: "validation_error",
    401: "not_authenticated",
    403: "permission_denied",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    412: "precondition_failed",
    413: "payload_too_large",
    415: "unsupported_media_type",
    429: "throttled",
    500: "internal_error",
    502: "upstream_error",
    503: "unavailable",
    504: "timeout",
    508: "loop_detected",
}

DEFAULT_MESSAGES = {
    400: "The request is not valid.",
    401: "Authentication credentials were not provided.",
    403: "You do not have permission to perform this action.",
    404: "Not found.",
    405: "Method not allowed.",
    413: "The request body is too large.",
    500: "Something went wrong on our side. The error has been logged.",
}


class ApiError(exceptions.APIException):
    """An API error with a code from docs/api.md, section 2; subclass per status.

    A subclass of DRF's APIException, so DRF views treat it as their own; plain
    Django views may raise it too (the middleware renders it).
    """

    status_code = 400
    default_code = "validation_error"
    default_detail = "The request is not valid."

    def __init__(
        self, message=None, *, code=None, details=None, headers=None, status=None
    ):
        super().__init__(message or self.default_detail, code or self.default_code)
        if status is not None:
            self.status_code = status
        self.error_code = code or self.default_code
        self.details = details
        self.headers = headers or {}


class ValidationFailed(ApiError):
    status_code = 400
    default_code = "validation_error"


class InvalidJson(ApiError):
    status_code = 400
    default_code = "invalid_json"
    default_detail = "The request body is not valid JSON."


class NotAuthenticated(ApiError):
    status_code = 401
    default_code = "not_authenticated"
    default_detail = DEFAULT_MESSAGES[401]


class InvalidToken(ApiError):
    """A bearer token that is malformed, unknown, expired or revoked (RFC 6750)."""

    status_code = 401
    default_code = "invalid_token"
    default_detail = "The API token is not valid: mistyped, expired or revoked."

    def __init__(self):
        super().__init__(headers={"WWW-Authenticate": 'Bearer error="invalid_token"'})


class CsrfFailed(ApiError):
    """An unsafe request on a session without a valid CSRF token."""

    status_code = 403
    default_code = "csrf_failed"

    def __init__(self, reason: str):
        super().__init__(f"CSRF Failed: {reason}")


class NotFound(ApiError):
    status_code = 404
    default_code = "not_found"
    default_detail = DEFAULT_MESSAGES[404]


class MethodNotAllowed(ApiError):
    """405 naming the methods that are allowed in the `Allow` header."""

    status_code = 405
    default_code = "method_not_allowed"
    default_detail = DEFAULT_MESSAGES[405]

    def __init__(self, allowed: Iterable[str], message=None):
        super().__init__(message, headers={"Allow": ", ".join(allowed)})


class Conflict(ApiError):
    status_code = 409
    default_code = "conflict"
    default_detail = "The request conflicts with the current state."


class PreconditionFailed(ApiError):
    status_code = 412
    default_code = "precondition_failed"
    default_detail = "The resource was changed by someone else; reload it and retry."


class PayloadTooLarge(ApiError):
    status_code = 413
    default_code = "payload_too_large"
    default_detail = "The request body is too large."


class UnsupportedMediaType(ApiError):
    status_code = 415
    default_code = "unsupported_media_type"
    default_detail = "The request body must be application/json."


class RetryLater(ApiError):
    """An error that tells the client when to try again (`Retry-After`)."""

    def __init__(self, retry_after: float, message=None):
        seconds = max(1, math.ceil(retry_after))
        super().__init__(message, headers={"Retry-After": str(seconds)})


class Throttled(RetryLater):
    status_code = 429
    default_code = "throttled"
    default_detail = "Too many requests; try again later."


class Unavailable(RetryLater):
    """503: the server is at capacity (or briefly without a dependency); retry."""

    status_code = 503
    default_code = "unavailable"
    default_detail = "The server is busy; try again shortly."


class UpstreamError(ApiError):
    status_code = 502
    default_code = "upstream_error"
    default_detail = "The upstream service failed."


# What a database that is down, unreachable or past its statement timeout raises.
DATABASE_UNAVAILABLE = (OperationalError, InterfaceError)


class GatewayTimeout(ApiError):
    status_code = 504
    default_code = "timeout"
    default_detail = "The operation took too long."


class LoopDetected(ApiError):
    """A webhook chain (flows calling webhooks) deeper than `WEBHOOK_MAX_HOPS`."""

    status_code = 508
    default_code = "loop_detected"
    default_detail = "This webhook call is part of a chain of flows that is too deep."


def error_body(code: str, message: str, details=None) -> dict:
    error = {"code": code, "message": message}
    if details:
        error["details"] = details
    return {"error": error}


def error_response(
    status_code: int,
    code: str | None = None,
    message=None,
    *,
    details=None,
    headers=None,
) -> JsonResponse:
    """A JsonResponse in the envelope; code and message default from the status."""
    code = code or STATUS_CODES.get(status_code, "internal_error")
    message = message or DEFAULT_MESSAGES.get(status_code, "Request failed.")
    response = JsonResponse(error_body(code, message, details), status=status_code)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _first_message(details) -> str:
    """The first human sentence inside DRF's nested validation details."""
    if isinstance(details, dict):
        for key, value in details.items():
            inner = _first_message(value)
            if key in ("non_field_errors", "detail"):
                return inner
            return f"{key}: {inner}"
    if isinstance(details, list) and details:
        return _first_message(details[0])
    return str(details)


def _plain(details):
    """DRF's ErrorDetail strings as plain JSON values."""
    if isinstance(details, dict):
        return {key: _plain(value) for key, value in details.items()}
    if isinstance(details, list):
        return [_plain(value) for value in details]
    return str(details)


def as_api_error(exc: Exception) -> ApiError:
    """The ApiError that stands for `exc`; an unknown exception is a bare 500."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, Http404 | exceptions.NotFound):
        return NotFound()
    if isinstance(exc, RequestDataTooBig):  # a view read `request.body`
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        return PayloadTooLarge(
            f"The request body is larger than {limit} bytes.", details={"limit": limit}
        )
    if isinstance(exc, exceptions.ParseError):
        return InvalidJson(f"The request body is not valid JSON. {exc.detail}".strip())
    if isinstance(exc, exceptions.ValidationError):
        details = _plain(exc.detail)
        if not isinstance(details, dict):
            details = {"non_field_errors": details}
        return ValidationFailed(_first_message(details), details=details)
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return NotAuthenticated(str(exc.detail))
    if isinstance(exc, exceptions.PermissionDenied | DjangoPermissionDenied):
        message = str(getattr(exc, "detail", "")) or DEFAULT_MESSAGES[403]
        return _with_status(403, message)
    if isinstance(exc, exceptions.Throttled):
        return Throttled(exc.wait or 0)
    if isinstance(exc, exceptions.APIException):
        return _with_status(exc.status_code, str(exc.detail))
    if isinstance(exc, DATABASE_UNAVAILABLE):
        # Connection refused or lost, a statement past its timeout: the
        # database is away for now, which is not the client's fault nor a bug.
        return Unavailable(5, "The database is briefly unavailable; try again shortly.")
    return _with_status(500, DEFAULT_MESSAGES[500])


def _with_status(status_code: int, message: str) -> ApiError:
    code = STATUS_CODES.get(status_code, "internal_error")
    return ApiError(message, code=code, status=status_code)


def error_response_for(exc: Exception) -> JsonResponse:
    """The envelope for any exception: the one place an API error is rendered."""
    error = as_api_error(exc)
    return error_response(
        error.status_code,
        error.error_code,
        str(error.detail),
        details=error.details,
        headers=error.headers,
    )
