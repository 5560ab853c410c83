"""The Credential model: a user's named secret, encrypted at rest.

Registered with Django through `flows.models`, which imports it.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from django.db import models

from accounts.workspaces.owned import WorkspaceOwned
from core import crypto

# Per kind: the fields shown back (public) and the write-only ones (secret).
KIND_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "header": {"public": ("header_name",), "secret": ("value",)},
    "bearer": {"public": (), "secret": ("token",)},
    "basic": {"public": ("username",), "secret": ("password",)},
    "query": {"public": ("param_name",), "secret": ("value",)},
    "custom": {"public": (), "secret": ("values",)},
    # A mail server for the send_email node (flows/nodes/send_email.py).
    "smtp": {
        "public": ("host", "port", "security", "username", "from_address"),
        "secret": ("password",),
    },
    # A PostgreSQL database for the postgres_query node.
    "postgres": {
        "public": ("host", "port", "database", "username", "sslmode"),
        "secret": ("password",),
    },
    # An OAuth 2.0 client (flows/credentials/oauth2/). Its tokens are stored
    # encrypted beside client_secret, but are no field: nobody types or reads them.
    "oauth2": {
        "public": (
            "grant",
            "authorize_url",
            "token_url",
            "client_id",
            "scopes",
            "authorize_params",
            "client_auth",
        ),
        "secret": ("client_secret",),
    },
}
# The kinds that sign an HTTP request (`Credential.apply`).
HTTP_KINDS = ("header", "bearer", "basic", "query", "oauth2")
PUBLIC_FIELDS = (
    "header_name",
    "username",
    "param_name",
    "host",
    "port",
    "security",
    "from_address",
    "database",
    "sslmode",
    "grant",
    "authorize_url",
    "token_url",
    "client_id",
    "scopes",
    "authorize_params",
    "client_auth",
)
SECRET_FIELDS = ("value", "token", "password", "values", "client_secret")
# The encrypted values an oauth2 credential gains by connecting (never fields).
TOKEN_KEYS = ("access_token", "refresh_token")
# Shorter values would be found inside ordinary words when redacting.
MIN_REDACTED_CHARS = 4


class Credential(WorkspaceOwned):
    """A named secret of a workspace (an API key, a password, a token); every
    flow of the workspace may use it.

    The secret fields live encrypted in `encrypted` (a Fernet token of their
    JSON); `public` holds the parts that are not secret, such as the header
    name. Flows refer to a credential by id (`credential_id`) or by name
    (`{{ secrets.NAME }}`); the engine decrypts it only while a run needs it.
    """

    class Kind(models.TextChoices):
        HEADER = "header"
        BEARER = "bearer"
        BASIC = "basic"
        QUERY = "query"
        CUSTOM = "custom"
        SMTP = "smtp"
        POSTGRES = "postgres"
        OAUTH2 = "oauth2"

    class TokenStatus(models.TextChoices):
        """oauth2 only: whether the stored tokens can be used."""

        NONE = "", "not connected"
        CONNECTED = "connected"
        RECONNECT_NEEDED = "reconnect_needed"

    name = models.CharField(
        max_length=100, help_text="Used in templates as {{ secrets.NAME }}."
    )
    kind = models.CharField(max_length=16, choices=Kind.choices)
    public = models.JSONField(default=dict, blank=True)
    encrypted = models.TextField(editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # oauth2: the state of the tokens kept (encrypted) in `encrypted`.
    token_status = models.CharField(
        max_length=16, choices=TokenStatus.choices, default="", blank=True
    )
    token_expires_at = models.DateTimeField(null=True, blank=True)
    granted_scopes = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Also serves the run-time lookup of a workspace's credentials by name.
            models.UniqueConstraint(
                fields=["workspace", "name"], name="credential_workspace_name_unique"
            ),
        ]

    def __str__(self):
        return f"{self.name} ({self.kind})"

    @property
    def has_value(self) -> bool:
        return bool(self.encrypted)

    @property
    def connected(self) -> bool:
        """oauth2: tokens are stored and the provider has not refused them."""
        return self.token_status == self.TokenStatus.CONNECTED

    def set_secrets(self, values: dict) -> None:
        self.encrypted = crypto.encrypt(values)

    def secrets(self) -> dict:
        """The decrypted secret fields (costs one decryption, no query)."""
        return crypto.decrypt(self.encrypted) if self.encrypted else {}

    def template_value(self, secrets: dict) -> Any:
        """What `{{ secrets.NAME }}` reads: the one secret, or an object of them."""
        if self.kind in (self.Kind.BASIC, self.Kind.SMTP, self.Kind.POSTGRES):
            return {"username": self.public.get("username", ""), **secrets}
        if self.kind == self.Kind.CUSTOM:
            return secrets.get("values", {})
        if self.kind == self.Kind.OAUTH2:
            return secrets.get("access_token")
        return secrets.get("token", secrets.get("value"))

    def apply(self, secrets: dict, headers: dict, params: list) -> None:
        """Add this credential to an outgoing request's headers or query params."""
        if self.kind == self.Kind.HEADER:
            headers[self.public["header_name"]] = secrets["value"]
        elif self.kind == self.Kind.BEARER:
            headers["Authorization"] = f"Bearer {secrets['token']}"
        elif self.kind == self.Kind.OAUTH2:
            headers["Authorization"] = f"Bearer {secrets['access_token']}"
        elif self.kind == self.Kind.BASIC:
            pair = f"{self.public.get('username', '')}:{secrets['password']}"
            encoded = base64.b64encode(pair.encode()).decode("ascii")
            headers["Authorization"] = f"Basic {encoded}"
        elif self.kind == self.Kind.QUERY:
            params.append((self.public["param_name"], secrets["value"]))

    def signed(self, secrets: dict, url: str, headers: dict) -> tuple[str, dict]:
        """`url` and `headers` with this credential applied: its header
        replaces one of the same name, and its query parameter one of the same
        name (a next page's link often repeats the first request's query)."""
        added: dict = {}
        params: list = []
        self.apply(secrets, added, params)
        replaced = {name.lower() for name in added}
        headers = {k: v for k, v in headers.items() if k.lower() not in replaced}
        headers.update(added)
        if params:
            parts = urlsplit(url)
            names = {name for name, _ in params}
            kept = [
                pair
                for pair in parse_qsl(parts.query, keep_blank_values=True)
                if pair[0] not in names
            ]
            url = urlunsplit(parts._replace(query=urlencode(kept + params)))
        return url, headers

    def redaction_values(self, secrets: dict) -> list[str]:
        """Every form in which this credential's values may come back.

        The plain values, their URL-encoded forms (a query parameter echoed in
        a URL) and, for basic, the base64 of `username:password` that the
        Authorization header carries.
        """
        plain = list(strings_in(secrets))
        if self.kind == self.Kind.BASIC:
            pair = f"{self.public.get('username', '')}:{secrets.get('password', '')}"
            plain.append(base64.b64encode(pair.encode()).decode("ascii"))
        forms = set()
        for value in plain:
            forms.update({value, quote(value, safe=""), quote_plus(value)})
        return [form for form in forms if len(form) >= MIN_REDACTED_CHARS]


def strings_in(value: Any):
    """Every string (and number, as text) inside a JSON value."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        yield str(value)
