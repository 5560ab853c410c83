"""The provider's discovery document: OIDC_ISSUER's
`/.well-known/openid-configuration`, read when a sign-in first needs it and
kept for an hour per process (providers rotate keys, not endpoints; the keys
themselves are read at each sign-in by the library)."""

from __future__ import annotations

import time

import requests
from django.conf import settings

KEEP_SECONDS = 3600
REQUIRED = ("authorization_endpoint", "token_endpoint", "jwks_uri")
_documents: dict[str, tuple[float, dict]] = {}


class ProviderUnavailable(Exception):
    """The provider could not be reached, or answered something unusable."""


def is_configured() -> bool:
    return bool(settings.OIDC_ISSUER)


def document() -> dict:
    """The discovery document of OIDC_ISSUER (a request when not kept)."""
    issuer = settings.OIDC_ISSUER
    kept = _documents.get(issuer)
    if kept and time.monotonic() - kept[0] < KEEP_SECONDS:
        return kept[1]
    url = f"{issuer}/.well-known/openid-configuration"
    try:
        response = requests.get(url, timeout=settings.OIDC_TIMEOUT_SECONDS)
        response.raise_for_status()
        found = response.json()
    except (requests.RequestException, ValueError) as error:
        raise ProviderUnavailable(f"{url} did not answer: {error}") from None
    if not isinstance(found, dict) or any(not found.get(key) for key in REQUIRED):
        raise ProviderUnavailable(f"{url} is not a discovery document.")
    # OpenID Connect Discovery 1.0, section 4.3: it must name the issuer asked.
    if str(found.get("issuer", "")).rstrip("/") != issuer:
        raise ProviderUnavailable(
            f"{url} names the issuer {found.get('issuer')!r}, not {issuer!r}."
        )
    _documents[issuer] = (time.monotonic(), found)
    return found


def signing_algorithm() -> str:
    """RS256 unless the provider signs ID tokens with something else only
    (the library checks each token's `alg` against this one)."""
    offered = document().get("id_token_signing_alg_values_supported") or ["RS256"]
    return "RS256" if "RS256" in offered else offered[0]
