"""Where errors are caught and handed to `errors.error_response_for`.

- `exception_handler`: DRF's EXCEPTION_HANDLER, for errors in DRF views.
- `ApiErrorMiddleware`: an `ApiError` raised by a plain Django view (the
  webhook, for one), and whatever never reaches DRF on an `/api/` path
  (unrouted paths, unexpected exceptions), so Django's HTML error pages never
  answer `/api/`.
- `csrf_failure`, `not_found_handler`, `server_error_handler`: Django's
  CSRF_FAILURE_VIEW, handler404 and handler500, JSON under `/api/`.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404, HttpResponse
from django.views import csrf, defaults
from rest_framework.views import exception_handler as drf_exception_handler

from core.http.errors import ApiError, CsrfFailed, error_response, error_response_for

logger = logging.getLogger("weir.api")

API_PREFIX = "/api/"

# Exceptions DRF's own handler does not know but which are the client's doing.
CLIENT_ERRORS = (Http404, DjangoPermissionDenied, RequestDataTooBig)


def exception_handler(exc, context):
    """DRF's EXCEPTION_HANDLER: every exception becomes the section 3 envelope."""
    known = drf_exception_handler(exc, context) is not None or isinstance(
        exc, CLIENT_ERRORS
    )
    if not known:
        logger.exception("Unhandled error in %s", context.get("view"), exc_info=exc)
    return error_response_for(exc)


def sent_as_is(response: HttpResponse) -> HttpResponse:
    """Mark `response` as the flow's own answer, which the API must not rewrite.

    A webhook's response node chooses its status, headers and body; a 404
    `text/plain` "no such order" is what the flow's author wants the caller to
    read, not a Django error page to be replaced by the envelope.
    """
    response.sent_as_is = True
    return response


class ApiErrorMiddleware:
    """Renders ApiErrors from plain views; keeps HTML error pages off `/api/`."""

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
        if isinstance(exception, ApiError):
            return error_response_for(exception)
        if not request.path.startswith(API_PREFIX):
            return None
        if not isinstance(exception, CLIENT_ERRORS):
            logger.exception("Unhandled error on %s", request.path, exc_info=exception)
        return error_response_for(exception)


def csrf_failure(request, reason=""):
    """CSRF_FAILURE_VIEW: `csrf_failed` for the API, Django's page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response_for(CsrfFailed(reason))
    return csrf.csrf_failure(request, reason)


def not_found_handler(request, exception=None):
    """handler404: JSON for `/api/`, the styled HTML page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response(404)
    return defaults.page_not_found(request, exception)


def server_error_handler(request):
    """handler500: JSON for `/api/`, the styled HTML page elsewhere."""
    if request.path.startswith(API_PREFIX):
        return error_response(500)
    return defaults.server_error(request)
