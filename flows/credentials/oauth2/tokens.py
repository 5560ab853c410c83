"""An oauth2 credential's tokens: stored encrypted, kept fresh, renewed once.

Tokens live in the credential's `encrypted` values beside `client_secret`
(`access_token`, `refresh_token`), so they are encrypted, rotated and redacted
like every secret; `token_status`, `token_expires_at` and `granted_scopes`
are the columns the API shows instead.

Renewing (a refresh, or a client_credentials fetch) happens under a row lock
on the credential (`select_for_update`; SQLite's IMMEDIATE transactions are
its lock there). Whoever takes the lock second reads the row again and, finding
a token other than the one it gave up on, uses it: when several workers need a
refresh at once exactly one asks the provider, so a rotating refresh token is
never sent twice. The token request is made while holding the lock, on purpose.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.db import transaction
from django.utils import timezone

from flows.credentials.models import TOKEN_KEYS, Credential
from flows.credentials.oauth2 import client

logger = logging.getLogger("weir.credentials")

# A token this close to its expiry is renewed before use, so that it does not
# expire on its way to the API.
LEEWAY = timedelta(seconds=60)
AUTHORIZATION_CODE = "authorization_code"
# The columns a change of tokens writes.
TOKEN_FIELDS = ("encrypted", "token_status", "token_expires_at", "granted_scopes")
CLIENT_CREDENTIALS = "client_credentials"


class TokenProblem(Exception):
    """No usable token; `code` is the node error a run fails with."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def is_current(credential: Credential, secrets: dict) -> bool:
    """Whether the stored access token may be sent now (one without an expiry
    is good until an API refuses it)."""
    if not credential.connected or not secrets.get("access_token"):
        return False
    expires_at = credential.token_expires_at
    return expires_at is None or expires_at - LEEWAY > timezone.now()


def can_renew(credential: Credential, secrets: dict) -> bool:
    """Whether a new token can be had without a person: a client credentials
    grant, or a refresh token."""
    if credential.public.get("grant") == CLIENT_CREDENTIALS:
        return True
    return credential.connected and bool(secrets.get("refresh_token"))


def usable_secrets(credential: Credential) -> dict:
    """The credential's secrets with an access token good for a minute at
    least, renewed first when not (`TokenProblem` when no token can be had).
    Costs no query while the token is current."""
    secrets = credential.secrets()
    if is_current(credential, secrets):
        return secrets
    return renew(credential, stale=secrets.get("access_token"))


def renew(credential: Credential, stale: str | None) -> dict:
    """The secrets with a token other than `stale` (the one the caller found
    expired, or that an API refused): another worker's, if it renewed while we
    waited for the lock, else a new one from the provider. `credential` is
    updated in place."""
    problem = None
    with transaction.atomic():
        locked = Credential.objects.select_for_update().get(pk=credential.pk)
        secrets = locked.secrets()
        current = secrets.get("access_token")
        renewed_meanwhile = current and current != stale
        if not (renewed_meanwhile and is_current(locked, secrets)):
            problem = _ask_provider(locked, secrets)
    for field in TOKEN_FIELDS:
        setattr(credential, field, getattr(locked, field))
    if problem is not None:
        raise problem
    return credential.secrets()


def _ask_provider(credential: Credential, secrets: dict) -> TokenProblem | None:
    """Renew under the lock, saving the outcome; the problem to raise once the
    lock is released (a refused refresh is saved as `reconnect_needed` first)."""
    name = credential.name
    grant = credential.public.get("grant")
    if grant == AUTHORIZATION_CODE and not can_renew(credential, secrets):
        if credential.token_status == Credential.TokenStatus.NONE:
            return TokenProblem(
                "credential_not_connected",
                f"Credential {name!r} is not connected: press Connect on the "
                "Credentials page.",
            )
        forget_tokens(credential, Credential.TokenStatus.RECONNECT_NEEDED)
        return TokenProblem(
            "credential_expired",
            f"Credential {name!r} has expired and cannot be refreshed: press "
            "Reconnect on the Credentials page.",
        )
    client_secret = secrets.get("client_secret")
    try:
        if grant == CLIENT_CREDENTIALS:
            token = client.client_credentials(credential.public, client_secret)
        else:
            token = client.refresh(
                credential.public, client_secret, secrets["refresh_token"]
            )
    except client.TokenRefused as refused:
        if grant == CLIENT_CREDENTIALS:
            return TokenProblem(
                "credential_refused",
                f"The token endpoint refused credential {name!r}'s client: "
                f"{refused}. Check its client id and secret.",
            )
        logger.warning(
            "The provider refused to refresh credential %s (%s)",
            credential.pk,
            refused.error,
        )
        forget_tokens(credential, Credential.TokenStatus.RECONNECT_NEEDED)
        return TokenProblem(
            "credential_expired",
            f"Credential {name!r} has expired: the provider refused to refresh "
            f"it ({refused}). Press Reconnect on the Credentials page.",
        )
    except client.TokenUnreachable as error:
        return TokenProblem(
            "credential_token_failed",
            f"No token for credential {name!r}: {error}",
        )
    store_tokens(credential, secrets, token)
    return None


def store_tokens(credential: Credential, secrets: dict, token: dict) -> None:
    """Keep `token` (an Authlib `OAuth2Token`) as the credential's tokens,
    encrypted, and mark it connected. One UPDATE."""
    kept = {key: value for key, value in secrets.items() if key not in TOKEN_KEYS}
    kept["access_token"] = token["access_token"]
    if token.get("refresh_token"):
        kept["refresh_token"] = token["refresh_token"]
    credential.set_secrets(kept)
    credential.token_status = Credential.TokenStatus.CONNECTED
    expires_at = token.get("expires_at")
    credential.token_expires_at = (
        datetime.fromtimestamp(expires_at, tz=UTC)
        if isinstance(expires_at, int)
        else None
    )
    # RFC 6749 5.1: a token answer without `scope` grants the scope asked for.
    scope = token.get("scope")
    if isinstance(scope, str):
        credential.granted_scopes = scope.split()
    elif not credential.granted_scopes:
        credential.granted_scopes = list(credential.public.get("scopes") or [])
    credential.save(update_fields=[*TOKEN_FIELDS, "updated_at"])


def forget_tokens(credential: Credential, status: str) -> None:
    """Drop the stored tokens (the client secret stays) and set `status`."""
    secrets = credential.secrets() if credential.encrypted else {}
    credential.set_secrets(
        {key: value for key, value in secrets.items() if key not in TOKEN_KEYS}
    )
    credential.token_status = status
    credential.token_expires_at = None
    credential.granted_scopes = []
    credential.save(update_fields=[*TOKEN_FIELDS, "updated_at"])
