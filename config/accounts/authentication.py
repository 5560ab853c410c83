"""The API's authentication class and its CSRF check, kept apart so DRF can
import them early (DEFAULT_AUTHENTICATION_CLASSES)."""

from __future__ import annotations

from django.http.multipartparser import MultiPartParserError
from rest_framework import authentication

from config.http.errors import CsrfFailed, UnsupportedMediaType


def enforce_csrf(request) -> None:
    """Run Django's CSRF check on `request` (a Django HttpRequest); CsrfFailed if
    it fails. Also for anonymous callers, which DRF's session auth never checks."""

    def no_view(request):
        return None

    check = authentication.CSRFCheck(no_view)
    check.process_request(request)  # reads the token from the cookie
    try:
        # On a POST Django looks for the token in the form body first, parsing
        # it; a multipart body without a boundary cannot be parsed. The API
        # only reads JSON anyway, so that body is refused as any other would be.
        reason = check.process_view(request, None, (), {})
    except MultiPartParserError:
        raise UnsupportedMediaType() from None
    if reason:
        raise CsrfFailed(reason)


class SessionAuthentication401(authentication.SessionAuthentication):
    """DRF's session auth, but anonymous requests get 401 instead of 403.

    DRF answers 403 when the first authenticator has no `WWW-Authenticate` value;
    naming one makes it answer 401 as docs/api.md, section 1 asks.
    """

    def authenticate_header(self, request):
        return 'Session realm="api"'

    def enforce_csrf(self, request):
        enforce_csrf(request)
