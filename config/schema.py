"""OpenAPI extensions so drf-spectacular documents our own classes."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class SessionCookieScheme(OpenApiAuthenticationExtension):
    """The API's session cookie (plus the X-CSRFToken header on unsafe methods)."""

    target_class = "config.accounts.authentication.SessionAuthentication401"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
