"""oauth2 credentials pointing at the tests' provider (tests/oauth_provider.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from flows.models import Credential
from tests.factories import make_credential
from tests.oauth_provider import CLIENT_ID, CLIENT_SECRET


def oauth2_credential(
    owner, provider, name="crm", grant="authorization_code", **public
) -> Credential:
    """A stored oauth2 credential of the provider's client, not connected."""
    fields = {
        "grant": grant,
        "token_url": f"{provider.url}/token",
        "client_id": CLIENT_ID,
        "scopes": ["read"],
    }
    if grant == "authorization_code":
        fields["authorize_url"] = f"{provider.url}/authorize"
    fields.update(public)
    return make_credential(
        owner, name, "oauth2", {"client_secret": CLIENT_SECRET}, **fields
    )


def connected(credential: Credential, provider, expires_in=3600, refresh=True):
    """`credential` holding a token the provider issued, as after a Connect;
    `expires_in` seconds from now (negative: already expired)."""
    token = provider.issue(refresh=refresh)
    secrets = {**credential.secrets(), "access_token": token.access_token}
    if token.refresh_token:
        secrets["refresh_token"] = token.refresh_token
    credential.set_secrets(secrets)
    credential.token_status = Credential.TokenStatus.CONNECTED
    credential.token_expires_at = datetime.now(UTC) + timedelta(seconds=expires_in)
    credential.granted_scopes = ["read"]
    credential.save()
    return token
