"""The Credential model: a user's named secret, encrypted at rest.

Registered with Django through `flows.models`, which imports it.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus, urlencode, urlsplit, urlunsplit

from django.db import models

from accounts.workspaces.owned import WorkspaceOwned
from core import crypto
from flows.credentials import kinds

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
        """The built-in kinds' names; plugins add others (flows/credentials/kinds.py),
        so the column holds any name and the API checks it is registered."""

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
    kind = models.CharField(max_length=64)
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

    def kind_spec(self) -> kinds.CredentialKind:
        """This credential's registered kind; UnknownKind when no installed
        plugin provides it any more."""
        return kinds.of(self.kind)

    def template_value(self, secrets: dict) -> Any:
        """What `{{ secrets.NAME }}` reads: the one secret, or an object of them."""
        return self.kind_spec().template_value(self.public, secrets)

    def apply(self, secrets: dict, headers: dict, params: list) -> None:
        """Add this credential to an outgoing request's headers or query params."""
        sign = self.kind_spec().sign
        if sign is not None:
            sign.apply(self.public, secrets, headers, params)

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
        a URL) and, for a kind signing with basic auth, the base64 of
        `username:password` that the Authorization header carries.
        """
        plain = list(strings_in(secrets))
        spec = kinds.get(self.kind)
        if spec is not None and isinstance(spec.sign, kinds.Basic):
            plain.append(spec.sign.pair(self.public, secrets))
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
