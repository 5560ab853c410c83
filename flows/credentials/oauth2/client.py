"""Authlib's OAuth 2.0 client, speaking through Weir's outbound wall.

Authlib builds every request (the authorization URL with its PKCE challenge,
the token requests with the client's authentication) and parses every answer;
`OutboundSession` only carries them, through `core.net.outbound`, so a token
URL typed by a workspace editor meets the same SSRF wall, pinned addresses
and deadline as an http_request node (docs/decisions.md, "OAuth2").
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

from authlib.oauth2 import OAuth2Error
from authlib.oauth2.client import OAuth2Client
from authlib.oauth2.rfc6749 import OAuth2Token

from core.net import outbound

# A person (or a run) waits for each token request.
TOKEN_TIMEOUT_SECONDS = 10


class TokenRefused(Exception):
    """The token endpoint answered with an OAuth error (`invalid_grant`, ...)."""

    def __init__(self, error: str, description: str = ""):
        self.error = error
        self.description = description or ""
        super().__init__(f"{error}: {description}" if description else error)


class TokenUnreachable(Exception):
    """No usable answer from the token endpoint (down, refused, not JSON)."""


class _Answer:
    """What Authlib reads of a response: a requests.Response look-alike."""

    def __init__(self, answer: dict):
        self.status_code = answer["status"]
        self._body = answer.get("body")

    def json(self):
        if not isinstance(self._body, dict):
            raise ValueError("not a JSON object")
        return self._body

    def raise_for_status(self):
        if self.status_code >= 400:
            raise TokenUnreachable(
                f"The token endpoint answered {self.status_code} without an "
                "OAuth error."
            )


class OutboundSession:
    """The session Authlib's client posts through (`core.net.outbound`)."""

    def __init__(self, deadline: float):
        self.deadline = deadline

    def post(self, url, data=None, headers=None, auth=None, **kwargs):
        return self.request("POST", url, data=data, headers=headers, auth=auth)

    def request(self, method, url, data=None, headers=None, auth=None, **kwargs):
        headers = dict(headers or {})
        body = urlencode(data or {})
        if auth is not None:
            url, headers, body = auth.prepare(method, url, headers, body)
        try:
            answer = outbound.request(method, url, headers, body, self.deadline)
        except outbound.OutboundError as error:
            raise TokenUnreachable(
                f"The token endpoint could not be reached: {error.message}"
            ) from error
        return _Answer(answer)


def client_for(public: dict, client_secret: str | None, deadline=None) -> OAuth2Client:
    """An Authlib client for a credential's public fields and client secret."""
    if deadline is None:
        deadline = time.monotonic() + TOKEN_TIMEOUT_SECONDS
    auth_method = public.get("client_auth") or "client_secret_basic"
    if not client_secret:
        auth_method = "none"  # a public client: PKCE is its only proof
    return OAuth2Client(
        OutboundSession(deadline),
        client_id=public.get("client_id"),
        client_secret=client_secret,
        token_endpoint_auth_method=auth_method,
        scope=" ".join(public.get("scopes") or []) or None,
        code_challenge_method="S256",
    )


def authorization_url(
    public: dict, redirect_uri: str, state: str, code_verifier: str
) -> str:
    """Where Connect sends the browser: the provider's consent page."""
    client = client_for(public, None)
    url, _ = client.create_authorization_url(
        public["authorize_url"],
        state=state,
        code_verifier=code_verifier,
        redirect_uri=redirect_uri,
        **(public.get("authorize_params") or {}),
    )
    return url


def _token(call) -> OAuth2Token:
    try:
        token = call()
    except OAuth2Error as error:
        raise TokenRefused(error.error or "error", error.description or "") from None
    except ValueError as error:
        raise TokenUnreachable(f"The token endpoint's answer: {error}") from None
    if not token.get("access_token"):
        raise TokenUnreachable("The token endpoint's answer holds no access_token.")
    return token


def exchange_code(
    public: dict, client_secret, code: str, code_verifier: str, redirect_uri: str
) -> OAuth2Token:
    """The tokens for an authorization code, proven with its PKCE verifier."""
    client = client_for(public, client_secret)
    return _token(
        lambda: client.fetch_token(
            public["token_url"],
            grant_type="authorization_code",
            code=code,
            code_verifier=code_verifier,
            redirect_uri=redirect_uri,
        )
    )


def refresh(public: dict, client_secret, refresh_token: str) -> OAuth2Token:
    """New tokens for a refresh token (which a rotating provider then revokes)."""
    client = client_for(public, client_secret)
    # No scope: the grant's own, not the one asked for (a provider may have
    # granted less, and asking for more than granted is refused).
    client.scope = None
    return _token(
        lambda: client.refresh_token(public["token_url"], refresh_token=refresh_token)
    )


def client_credentials(public: dict, client_secret) -> OAuth2Token:
    """A token for the client itself (no user, no refresh token)."""
    client = client_for(public, client_secret)
    return _token(
        lambda: client.fetch_token(public["token_url"], grant_type="client_credentials")
    )
