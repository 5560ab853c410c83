"""A real OAuth 2.0 provider for the tests: Authlib's authorization server in
a small Flask app on a loopback port, in a thread. Fixture `oauth_provider`.

It speaks authorization_code with PKCE (S256 required), refresh_token with
rotation (each refresh revokes the refresh token it was given) and
client_credentials, shows a consent page with Allow and Deny buttons, and
serves `/api/me`, an API that answers 200 for a live access token and 401 for
anything else. `token_requests` keeps every form the token endpoint received.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field

import pytest
from authlib.common.security import generate_token
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import grants
from authlib.oauth2.rfc6749.models import ClientMixin
from authlib.oauth2.rfc6750 import BearerTokenGenerator
from authlib.oauth2.rfc7636 import CodeChallenge
from flask import Flask, jsonify, request
from markupsafe import escape
from werkzeug.serving import make_server

CLIENT_ID = "weir-client"
CLIENT_SECRET = "provider-client-secret-0123456789"
USER = {"id": 1, "name": "octo"}


@dataclass
class Client(ClientMixin):
    client_id: str
    client_secret: str
    redirect_uris: list = field(default_factory=list)
    scope: str = "read write admin"

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.redirect_uris[0] if self.redirect_uris else None

    def get_allowed_scope(self, scope):
        allowed = set(self.scope.split())
        return " ".join(s for s in (scope or "").split() if s in allowed)

    def check_redirect_uri(self, redirect_uri):
        return not self.redirect_uris or redirect_uri in self.redirect_uris

    def check_client_secret(self, client_secret):
        return client_secret == self.client_secret

    def check_endpoint_auth_method(self, method, endpoint):
        return method in ("client_secret_basic", "client_secret_post")

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return True


@dataclass
class Code:
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    code_challenge: str
    code_challenge_method: str

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope


@dataclass
class Token:
    client_id: str
    access_token: str
    refresh_token: str | None
    scope: str
    expires_at: float
    revoked: bool = False

    def check_client(self, client):
        return client.client_id == self.client_id

    def get_scope(self):
        return self.scope

    def get_expires_in(self):
        return int(self.expires_at - time.time())

    def is_expired(self):
        return time.time() >= self.expires_at

    def is_revoked(self):
        return self.revoked


class Provider:
    """The provider's state, shared by its handlers and the test."""

    def __init__(self):
        self.clients = {CLIENT_ID: Client(CLIENT_ID, CLIENT_SECRET)}
        self.codes: dict[str, Code] = {}
        self.tokens: list[Token] = []
        self.token_requests: list[dict] = []
        self.api_hits: list[str | None] = []
        self.expires_in = 3600
        self.token_delay = 0.0  # seconds each token answer waits
        self.down = False  # the token endpoint answers 503
        self.lock = threading.Lock()
        self.url = ""

    def refreshes(self) -> list[dict]:
        return [r for r in self.token_requests if r["grant_type"] == "refresh_token"]

    def grants_of(self, grant_type: str) -> list[dict]:
        return [r for r in self.token_requests if r["grant_type"] == grant_type]

    def live(self, access_token: str) -> Token | None:
        for token in self.tokens:
            if token.access_token == access_token:
                live = not token.revoked and not token.is_expired()
                return token if live else None
        return None

    def revoke_access_tokens(self) -> None:
        """Every access token stops working (refresh tokens still do): the
        API then answers 401 to a token Weir still thinks good."""
        for token in self.tokens:
            token.expires_at = 0

    def issue(self, client_id="weir-client", scope="read", refresh=True) -> Token:
        """A token as if granted earlier (to seed a connected credential)."""
        token = Token(
            client_id,
            generate_token(42),
            generate_token(48) if refresh else None,
            scope,
            time.time() + self.expires_in,
        )
        self.tokens.append(token)
        return token


def build_app(provider: Provider) -> Flask:
    app = Flask(__name__)

    def save_token(token, req):
        with provider.lock:
            provider.tokens.append(
                Token(
                    req.client.client_id,
                    token["access_token"],
                    token.get("refresh_token"),
                    token.get("scope", ""),
                    time.time() + token["expires_in"],
                )
            )

    server = AuthorizationServer(
        app, query_client=provider.clients.get, save_token=save_token
    )

    class CodeGrant(grants.AuthorizationCodeGrant):
        def save_authorization_code(self, code, req):
            provider.codes[code] = Code(
                code,
                req.client.client_id,
                req.payload.redirect_uri,
                req.payload.scope,
                req.payload.data.get("code_challenge"),
                req.payload.data.get("code_challenge_method"),
            )

        def query_authorization_code(self, code, client):
            found = provider.codes.get(code)
            return found if found and found.client_id == client.client_id else None

        def delete_authorization_code(self, authorization_code):
            provider.codes.pop(authorization_code.code, None)

        def authenticate_user(self, authorization_code):
            return USER

    class RotatingRefreshGrant(grants.RefreshTokenGrant):
        INCLUDE_NEW_REFRESH_TOKEN = True

        def authenticate_refresh_token(self, refresh_token):
            for token in provider.tokens:
                if token.refresh_token == refresh_token and not token.revoked:
                    return token
            return None

        def authenticate_user(self, refresh_token):
            return USER

        def revoke_old_credential(self, refresh_token):
            refresh_token.revoked = True

    class S256Only(CodeChallenge):
        SUPPORTED_CODE_CHALLENGE_METHOD = ["S256"]

    server.register_grant(CodeGrant, [S256Only(required=True)])
    server.register_grant(RotatingRefreshGrant)
    server.register_grant(grants.ClientCredentialsGrant)
    server.register_token_generator(
        "default",
        BearerTokenGenerator(
            lambda **kwargs: generate_token(42),
            lambda **kwargs: generate_token(48),
            lambda client, grant_type: provider.expires_in,
        ),
    )

    @app.get("/authorize")
    def consent():
        grant = server.get_consent_grant(end_user=USER)
        client_id = escape(grant.client.client_id)
        return (
            "<!doctype html><title>Provider consent</title>"
            f"<h1>Allow {client_id} to use your account?</h1>"
            '<form method="post">'
            '<button name="answer" value="allow">Allow</button>'
            '<button name="answer" value="deny">Deny</button></form>'
        )

    @app.post("/authorize")
    def decide():
        grant = server.get_consent_grant(end_user=USER)
        allowed = request.form.get("answer") == "allow"
        return server.create_authorization_response(
            grant_user=USER if allowed else None, grant=grant
        )

    @app.post("/token")
    def token():
        provider.token_requests.append(request.form.to_dict())
        time.sleep(provider.token_delay)
        if provider.down:
            return "down for maintenance", 503
        return server.create_token_response()

    @app.get("/api/me")
    def me():
        header = request.headers.get("Authorization", "")
        provider.api_hits.append(header)
        token = provider.live(header.removeprefix("Bearer "))
        if token is None:
            return jsonify(error="invalid_token"), 401
        return jsonify(user=USER["name"], scope=token.scope)

    return app


@pytest.fixture
def oauth_provider():
    """A running provider; `oauth_provider.url` is its root."""
    saved = os.environ.get("AUTHLIB_INSECURE_TRANSPORT")
    os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"  # http on loopback
    provider = Provider()
    httpd = make_server("127.0.0.1", 0, build_app(provider), threaded=True)
    provider.url = f"http://127.0.0.1:{httpd.server_port}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield provider
    httpd.shutdown()
    if saved is None:
        os.environ.pop("AUTHLIB_INSECURE_TRANSPORT", None)
    else:
        os.environ["AUTHLIB_INSECURE_TRANSPORT"] = saved
