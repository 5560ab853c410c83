"""One error shape for every non-2xx `/api/` response (DESIGN.md section 3).

Views raise exceptions; `exception_handler` turns DRF's into the envelope, and
`ApiErrorMiddleware` catches what never reaches DRF (unrouted paths, Django's
CSRF failures, unexpected exceptions) so Django's HTML pages never answer `/api/`.
"""

from __future__ import annotations

import logging
import math

from django.conf import settings
from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponse, JsonResponse
from rest_framework import exceptions, status
from rest_framework.views import exception_handler as drf_exception_handler

logger = logging.getLogger("weir.api")

API_PREFIX = "/api/"

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
    504: "timeout",
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
    """An API error with a code from DESIGN.md section 3; subclass per status."""

    status_code = 400
    default_code = "validation_error"
    default_detail = "The request is not valid."

    def __init__(self, message=None, *, code=None, details=None, headers=None):
        super().__init__(message or self.default_detail, code or self.default_code)
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


class Throttled(ApiError):
    status_code = 429
    default_code = "throttled"
    default_detail = "Too many requests; try again later."

    def __init__(self, retry_after: float, message=None):
        seconds = max(1, math.ceil(retry_after))
        super().__init__(message, headers={"Retry-After": str(seconds)})


class UpstreamError(ApiError):
    status_code = 502
    default_code = "upstream_error"
    default_detail = "The upstream service failed."


class GatewayTimeout(ApiError):
    status_code = 504
    default_code = "timeout"
    default_detail = "The operation took too long."


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
    """A JsonResponse in the envelope; for plain Django views such as the webhook."""
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


def _envelope_for(exc) -> tuple[int, str, str, object, dict]:
    """(status, code, message, details, headers) for an exception DRF knows."""
    headers = {}
    if isinstance(exc, ApiError):
        return (
            exc.status_code,
            exc.error_code,
            str(exc.detail),
            exc.details,
            exc.headers,
        )
    if isinstance(exc, Http404 | exceptions.NotFound):
        return 404, "not_found", "Not found.", None, headers
    if isinstance(exc, RequestDataTooBig):  # a view read `request.body`
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        message = f"The request body is larger than {limit} bytes."
        return 413, "payload_too_large", message, {"limit": limit}, headers
    if isinstance(exc, exceptions.ParseError):
        return (
            400,
            "invalid_json",
            f"The request body is not valid JSON. {exc.detail}".strip(),
            None,
            headers,
        )
    if isinstance(exc, exceptions.ValidationError):
        details = _plain(exc.detail)
        if not isinstance(details, dict):
            details = {"non_field_errors": details}
        return 400, "validation_error", _first_message(details), details, headers
    if isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        return 401, "not_authenticated", str(exc.detail), None, headers
    if isinstance(exc, exceptions.PermissionDenied | DjangoPermissionDenied):
        message = str(getattr(exc, "detail", "")) or DEFAULT_MESSAGES[403]
        code = (
            "csrf_failed" if message.startswith("CSRF Failed") else "permission_denied"
        )
        return 403, code, message, None, headers
    if isinstance(exc, exceptions.Throttled):
        if exc.wait is not None:
            headers["Retry-After"] = str(max(1, math.ceil(exc.wait)))
        return 429, "throttled", "Too many requests; try again later.", None, headers
    if isinstance(exc, exceptions.APIException):
        code = STATUS_CODES.get(exc.status_code, "internal_error")
        return exc.status_code, code, str(exc.detail), None, headers
    return 500, "internal_error", DEFAULT_MESSAGES[500], None, headers


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every exception becomes the section 3 envelope."""
    known = drf_exception_handler(exc, context) is not None or isinstance(
        exc, Http404 | DjangoPermissionDenied | RequestDataTooBig
    )
    if not known:
        logger.exception("Unhandled error in %s", context.get("view"), exc_info=exc)
    status_code, code, message, details, headers = _envelope_for(exc)
    response = error_response(
        status_code, code, message, details=details, headers=headers
    )
    if status_code == status.HTTP_405_METHOD_NOT_ALLOWED and context.get("view"):
        response["Allow"] = ", ".join(context["view"].allowed_methods)
    return response


def sent_as_is(response: HttpResponse) -> HttpResponse:
    """Mark `response` as the flow's own answer, which the API must not rewrite.

    A webhook's response node chooses its status, headers and body; a 404
    `text/plain` "no such order" is what the flow's author wants the caller to
    read, not a Django error page to be replaced by the envelope.
    """
    response.sent_as_is = True
    return response


class ApiErrorMiddleware:
    """Keeps Django's HTML error pages away from `/api/` paths."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if not request.path.startswith(API_PREFIX) or response.status_code < 400:
            return response
        if getattr(response, "sent_as_is", False):
            return response
        if response.get("Content-Type", "").startswith("application/json"):
            return response
        replacement = error_response(response.status_code)
        for header in ("Allow", "Retry-After"):
            if header in response:
                replacement[header] = response[header]
        return replacement

    def process_exception(self, request, exception):
        if not request.path.startswith(API_PREFIX):
            return None
        if isinstance(exception, Http404):
            return error_response(404)
        logger.exception("Unhandled error on %s", request.path, exc_info=exception)
        return error_response(500)


def csrf_failure(request, reason=""):
    """Django's CSRF_FAILURE_VIEW: JSON for the API, Django's page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response(403, "csrf_failed", f"CSRF Failed: {reason}")
    from django.views.csrf import csrf_failure as django_csrf_failure

    return django_csrf_failure(request, reason)


def not_found_handler(request, exception=None):
    """handler404: JSON for `/api/`, the styled HTML page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response(404)
    from django.views.defaults import page_not_found

    return page_not_found(request, exception)


def server_error_handler(request):
    """handler500: JSON for `/api/`, the styled HTML page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response(500)
    from django.views.defaults import server_error

    return server_error(request)
