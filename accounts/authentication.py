"""The API's authentication classes and the CSRF check, kept apart so DRF can
import them early (DEFAULT_AUTHENTICATION_CLASSES)."""

from __future__ import annotations

import ipaddress

from django.core.exceptions import BadRequest
from django.db.models import Q
from django.http.multipartparser import MultiPartParserError
from rest_framework import authentication

from accounts.tokens import text
from core.http.client_address import client_address
from core.http.errors import CsrfFailed, InvalidToken, UnsupportedMediaType


def enforce_csrf(request) -> None:
    """Run Django's CSRF check on `request` (a Django HttpRequest); CsrfFailed if
    it fails. Also for anonymous callers, which DRF's session auth never checks."""

    def no_view(request):
        return None

    check = authentication.CSRFCheck(no_view)
    check.process_request(request)  # reads the token from the cookie
    try:
        # On a POST Django looks for the token in the form body first, parsing
        # it; a multipart body without a boundary cannot be parsed, nor (Django
        # says BadRequest) an urlencoded one in a charset other than UTF-8. The
        # API only reads JSON anyway, so that body is refused as any other is.
        reason = check.process_view(request, None, (), {})
    except (MultiPartParserError, BadRequest):
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


class BearerTokenAuthentication(authentication.BaseAuthentication):
    """`Authorization: Bearer weir_pat_…` or `weir_wst_…`, tried before the session.

    A bearer header that does not name a usable token is a 401, never a
    fall-back to the session cookie: a script must learn its token is bad. A
    malformed token or a wrong checksum is refused before any query. Bearer
    requests need no CSRF token: nothing the browser adds by itself
    authenticates them.
    """

    def authenticate(self, request):
        scheme, _, value = authentication.get_authorization_header(request).partition(
            b" "
        )
        if scheme.lower() != b"bearer":
            return None
        digest = text.digest_of(value.strip().decode("latin-1"))
        if digest is None:
            raise InvalidToken()
        # Imported here: DRF imports this module before the app registry is ready.
        from accounts.tokens.models import ApiToken
        from accounts.tokens.service import ServiceAccount

        token = (
            ApiToken.objects.usable()
            .select_related("user")
            .filter(Q(user__is_active=True) | Q(user__isnull=True), digest=digest)
            .first()
        )
        if token is None:
            raise InvalidToken()
        token.touch(_ip_or_none(client_address(request._request)))
        if token.user is None:  # a workspace token: its own service account
            return ServiceAccount(token), token
        # Read by accounts.workspaces.access: the request reaches this workspace only.
        token.user.token_workspace_id = token.workspace_id
        return token.user, token

    def authenticate_header(self, request):
        return 'Bearer realm="api"'


def _ip_or_none(address: str) -> str | None:
    try:
        return str(ipaddress.ip_address(address))
    except ValueError:
        return None
