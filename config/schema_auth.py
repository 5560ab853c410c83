"""The API's two ways in, as OpenAPI security schemes: the session cookie and a
bearer token. drf-spectacular finds them by `target_class` once imported
(config/schema.py imports this module)."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class SessionCookieScheme(OpenApiAuthenticationExtension):
    """The API's session cookie (plus the X-CSRFToken header on unsafe methods)."""

    target_class = "accounts.authentication.SessionAuthentication401"
    name = "cookieAuth"

    def get_security_definition(self, auto_schema):
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


class BearerTokenScheme(OpenApiAuthenticationExtension):
    """An API token (docs/api.md, section 1): no CSRF header needed."""

    target_class = "accounts.authentication.BearerTokenAuthentication"
    name = "bearerAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A personal `weir_pat_...` token (the tokens page, POST "
            "/api/tokens) or a workspace's `weir_wst_...` token (POST /api/workspaces/"
            "{id}/tokens); what it may do is its role, or role cap, in its one "
            "workspace narrowed by its scopes.",
        }
