"""Single sign-on with OpenID Connect (docs/operations.md, "Single sign-on").

On when OIDC_ISSUER is set; the endpoints come from its discovery document.
Kept apart from config/settings.py, which reads these into its own names.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config import env_values


def read(env) -> dict:
    """Every OIDC_* setting from the environment; an issuer without its
    client stops start-up."""
    issuer = env("OIDC_ISSUER", default="").rstrip("/")
    values = {
        "OIDC_ISSUER": issuer,
        "OIDC_CLIENT_ID": env("OIDC_CLIENT_ID", default=""),
        "OIDC_CLIENT_SECRET": env("OIDC_CLIENT_SECRET", default=""),
        "OIDC_SCOPES": env("OIDC_SCOPES", default="openid email profile"),
        # "Sign in with <name>" on /login/.
        "OIDC_NAME": env("OIDC_NAME", default="single sign-on"),
        # A verified e-mail with no account makes one (with its personal workspace).
        "OIDC_CREATE_USERS": env.bool("OIDC_CREATE_USERS", default=False),
        # `group:workspace name or slug:role`, comma-separated; the claim it reads.
        "OIDC_GROUP_ROLES": env_values.group_roles(env, "OIDC_GROUP_ROLES"),
        "OIDC_GROUPS_CLAIM": env("OIDC_GROUPS_CLAIM", default="groups"),
        "OIDC_TIMEOUT_SECONDS": env.float("OIDC_TIMEOUT_SECONDS", default=10),
    }
    if issuer and not (values["OIDC_CLIENT_ID"] and values["OIDC_CLIENT_SECRET"]):
        raise ImproperlyConfigured(
            "OIDC_ISSUER is set: set OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too."
        )
    return values
