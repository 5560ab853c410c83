"""A real OpenID provider for the single sign-on tests: Authlib's
authorization server in a small Flask app, on a free loopback port, in a
thread of the test process.

It speaks the authorization code flow as providers do: a discovery
document, a login page (`username`, `password`, a "Sign in" and a "Deny"
button), PKCE (S256, required), the nonce (required), ID tokens signed
RS256 with a key it makes at start and publishes as JWKS, and a userinfo
endpoint. Tests add the people it knows with their claims:

    provider.add_person("ada", email="ada@example.com", email_verified=True,
                        groups=["weir-ops"], amr=["pwd", "mfa"])

and `provider.sign_in(authorize_url, "ada")` does what a browser does on its
login page, returning the callback URL it redirects to. `client_secret`,
`userinfo_extra`, `id_token_extra` and `redirect_uris` may be changed
between steps to make it misbehave.
"""

from __future__ import annotations

import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import requests
from authlib.integrations.flask_oauth2 import AuthorizationServer
from authlib.oauth2.rfc6749 import ClientMixin, grants
from authlib.oauth2.rfc7636 import CodeChallenge
from authlib.oidc.core import UserInfo
from authlib.oidc.core.grants import OpenIDCode
from authlib.oidc.core.models import AuthorizationCodeMixin
from flask import Flask, jsonify, request
from joserfc.jwk import RSAKey
from markupsafe import escape
from werkzeug.serving import make_server

# Loopback HTTP in tests; Authlib insists on HTTPS otherwise.
os.environ.setdefault("AUTHLIB_INSECURE_TRANSPORT", "1")

CLIENT_ID = "weir"
CLIENT_SECRET = "weir-test-secret"
PASSWORD = "provider-password"


@dataclass
class Person:
    username: str
    claims: dict
    amr: list = field(default_factory=lambda: ["pwd"])
    password: str = PASSWORD

    def get_user_id(self):
        return self.username


@dataclass
class Client(ClientMixin):
    provider: OidcProvider
    client_id: str = CLIENT_ID
    client_metadata: dict = field(default_factory=dict)

    def get_client_id(self):
        return self.client_id

    def get_default_redirect_uri(self):
        return self.provider.redirect_uris[0]

    def get_allowed_scope(self, scope):
        return " ".join(s for s in scope.split() if s in SCOPES)

    def check_redirect_uri(self, redirect_uri):
        return redirect_uri in self.provider.redirect_uris

    def check_client_secret(self, client_secret):
        return client_secret == self.provider.client_secret

    def check_endpoint_auth_method(self, method, endpoint):
        return method in ("client_secret_post", "client_secret_basic")

    def check_response_type(self, response_type):
        return response_type == "code"

    def check_grant_type(self, grant_type):
        return grant_type == "authorization_code"


SCOPES = ("openid", "email", "profile", "groups")


@dataclass
class Code(AuthorizationCodeMixin):
    code: str
    client_id: str
    redirect_uri: str
    scope: str
    nonce: str
    person: Person
    code_challenge: str
    code_challenge_method: str

    def get_redirect_uri(self):
        return self.redirect_uri

    def get_scope(self):
        return self.scope

    def get_nonce(self):
        return self.nonce

    def get_auth_time(self):
        return int(time.time())

    def get_acr(self):
        return None

    def get_amr(self):
        return list(self.person.amr)


class OidcProvider:
    def __init__(self):
        self.people: dict[str, Person] = {}
        self.codes: dict[str, Code] = {}
        self.tokens: dict[str, Person] = {}
        self.redirect_uris: list[str] = []
        self.client_secret = CLIENT_SECRET
        self.userinfo_extra: dict = {}
        self.id_token_extra: dict = {}
        self.discovery_extra: dict = {}
        self.discovery_requests = 0
        self.token_requests: list[dict] = []
        self.key = RSAKey.generate_key(
            2048, parameters={"kid": secrets.token_hex(4), "use": "sig"}
        )
        self.app = self._make_app()
        self._server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"

    # -- what tests call --------------------------------------------------

    def start(self) -> OidcProvider:
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_person(self, username, amr=("pwd",), **claims) -> Person:
        claims.setdefault("email", f"{username}@example.com")
        claims.setdefault("email_verified", True)
        self.people[username] = Person(username, claims, list(amr))
        return self.people[username]

    def sign_in(self, authorize_url: str, username: str, password=PASSWORD) -> str:
        """Open the login page, sign in as `username`, and return the URL the
        provider sends the browser back to (Weir's callback)."""
        page = requests.get(authorize_url, timeout=10)
        assert page.status_code == 200, page.text
        answer = requests.post(
            authorize_url,
            data={"username": username, "password": password, "action": "allow"},
            allow_redirects=False,
            timeout=10,
        )
        assert answer.status_code == 302, answer.text
        return answer.headers["Location"]

    def deny(self, authorize_url: str) -> str:
        answer = requests.post(
            authorize_url, data={"action": "deny"}, allow_redirects=False, timeout=10
        )
        return answer.headers["Location"]

    # -- the provider -------------------------------------------------------

    def _make_app(self) -> Flask:
        app = Flask(__name__)
        provider = self
        server = AuthorizationServer(
            app, query_client=self._client, save_token=self._save_token
        )

        class CodeGrant(grants.AuthorizationCodeGrant):
            TOKEN_ENDPOINT_AUTH_METHODS = ["client_secret_basic", "client_secret_post"]

            def save_authorization_code(self, code, req):
                data = req.payload.data
                provider.codes[code] = Code(
                    code=code,
                    client_id=req.client.client_id,
                    redirect_uri=req.payload.redirect_uri,
                    scope=req.scope,
                    nonce=data.get("nonce"),
                    person=req.user,
                    code_challenge=data.get("code_challenge"),
                    code_challenge_method=data.get("code_challenge_method"),
                )

            def query_authorization_code(self, code, client):
                found = provider.codes.get(code)
                return found if found and found.client_id == client.client_id else None

            def delete_authorization_code(self, authorization_code):
                provider.codes.pop(authorization_code.code, None)

            def authenticate_user(self, authorization_code):
                return authorization_code.person

        class IdToken(OpenIDCode):
            def exists_nonce(self, nonce, req):
                return any(code.nonce == nonce for code in provider.codes.values())

            def resolve_client_private_key(self, client):
                return provider.key

            def get_client_algorithm(self, client):
                return "RS256"

            def get_encode_header(self, client):
                return {"alg": "RS256", "kid": provider.key.kid}

            def get_client_claims(self, client):
                claims = {"iss": provider.url, "aud": [client.get_client_id()]}
                return {**claims, **provider.id_token_extra}

            def generate_user_info(self, user, scope):
                return UserInfo(sub=user.username, **user.claims)

        server.register_grant(
            CodeGrant, [IdToken(require_nonce=True), CodeChallenge(required=True)]
        )

        @app.get("/.well-known/openid-configuration")
        def discovery():
            provider.discovery_requests += 1
            document = dict(
                issuer=provider.url,
                authorization_endpoint=f"{provider.url}/authorize",
                token_endpoint=f"{provider.url}/token",
                userinfo_endpoint=f"{provider.url}/userinfo",
                jwks_uri=f"{provider.url}/jwks",
                response_types_supported=["code"],
                subject_types_supported=["public"],
                id_token_signing_alg_values_supported=["RS256"],
                code_challenge_methods_supported=["S256"],
                scopes_supported=list(SCOPES),
            )
            return jsonify({**document, **provider.discovery_extra})

        @app.get("/jwks")
        def jwks():
            return jsonify(keys=[provider.key.as_dict(private=False)])

        @app.route("/authorize", methods=["GET", "POST"])
        def authorize():
            grant = server.get_consent_grant(end_user=None)
            if request.method == "GET":
                return login_page(grant.client.client_id)
            if request.form.get("action") == "deny":
                return server.create_authorization_response(
                    grant_user=None, grant=grant
                )
            person = provider.people.get(request.form.get("username", ""))
            if person is None or person.password != request.form.get("password"):
                return login_page(grant.client.client_id, "Wrong username or password.")
            return server.create_authorization_response(grant_user=person, grant=grant)

        @app.post("/token")
        def token():
            provider.token_requests.append(request.form.to_dict())
            return server.create_token_response()

        @app.get("/userinfo")
        def userinfo():
            scheme, _, value = request.headers.get("Authorization", "").partition(" ")
            person = provider.tokens.get(value) if scheme == "Bearer" else None
            if person is None:
                return jsonify(error="invalid_token"), 401
            return jsonify(
                {"sub": person.username, **person.claims, **provider.userinfo_extra}
            )

        return app

    def _client(self, client_id):
        return Client(self) if client_id == CLIENT_ID else None

    def _save_token(self, token, req):
        self.tokens[token["access_token"]] = req.user


def login_page(client_id: str, error: str = ""):
    alert = f'<p role="alert">{escape(error)}</p>' if error else ""
    return f"""<!doctype html><html lang="en"><head><title>Test provider</title></head>
<body><main><h1>Test provider</h1><p>Sign in to continue to {escape(client_id)}.</p>
{alert}<form method="post">
<label>Username <input name="username" autocomplete="username"></label>
<label>Password <input name="password" type="password"></label>
<button name="action" value="allow">Sign in</button>
<button name="action" value="deny">Deny</button>
</form></main></body></html>"""


def callback_path(url: str) -> str:
    """The path and query of a URL (what Django's test client asks for)."""
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}"
