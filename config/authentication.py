"""The API's authentication class, kept apart so DRF can import it early."""

from rest_framework import authentication


class SessionAuthentication401(authentication.SessionAuthentication):
    """DRF's session auth, but anonymous requests get 401 instead of 403.

    DRF answers 403 when the first authenticator has no `WWW-Authenticate` value;
    naming one makes it answer 401 as DESIGN.md section 2 asks.
    """

    def authenticate_header(self, request):
        return 'Session realm="api"'
