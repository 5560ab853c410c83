"""mozilla-django-oidc's settings, answered from Weir's.

Each of the library's classes reads its settings through a `get_settings`
static method, which is its documented way to be configured otherwise: the
endpoints come from the discovery document at sign-in time (not from
settings read at start-up), PKCE and the nonce are always on, and Weir's
own setting names (OIDC_CLIENT_ID, ...) stand for the library's.
"""

from __future__ import annotations

from django.conf import settings
from mozilla_django_oidc.utils import import_from_settings

from accounts.oidc import discovery

_FROM_DISCOVERY = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}

_FROM_WEIR = {
    "OIDC_RP_CLIENT_ID": lambda: settings.OIDC_CLIENT_ID,
    "OIDC_RP_CLIENT_SECRET": lambda: settings.OIDC_CLIENT_SECRET,
    "OIDC_RP_SCOPES": lambda: settings.OIDC_SCOPES,
    "OIDC_RP_SIGN_ALGO": discovery.signing_algorithm,
    "OIDC_TIMEOUT": lambda: settings.OIDC_TIMEOUT_SECONDS,
    "OIDC_USE_PKCE": lambda: True,
    "OIDC_USE_NONCE": lambda: True,
    "OIDC_AUTHENTICATION_CALLBACK_URL": lambda: "oidc-callback",
    # Nothing of the provider's is kept in the session: Weir's session is
    # the sign-in, and signing out ends it.
    "OIDC_STORE_ACCESS_TOKEN": lambda: False,
    "OIDC_STORE_ID_TOKEN": lambda: False,
}


def setting(name: str, *default):
    """The value the library asks for by `name` (a request to the provider
    for an endpoint not read yet in this process)."""
    if name in _FROM_DISCOVERY:
        return discovery.document().get(_FROM_DISCOVERY[name], "")
    if name in _FROM_WEIR:
        return _FROM_WEIR[name]()
    return import_from_settings(name, *default)
