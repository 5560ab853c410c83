"""What `/api/credentials` reads and shows of an oauth2 credential.

`OAuth2Fields` is mixed into `CredentialSerializer`: the kind's fields, the
checks that depend on its grant, and the connection it answers with
(`connected`, `reconnect_needed`, `expires_at`, `granted_scopes`), never a
token.
"""

from __future__ import annotations

from rest_framework import serializers

from core.net import outbound
from flows.credentials import kinds
from flows.credentials.models import TOKEN_KEYS
from flows.credentials.oauth2.tokens import AUTHORIZATION_CODE, CLIENT_CREDENTIALS

GRANTS = (AUTHORIZATION_CODE, CLIENT_CREDENTIALS)
CLIENT_AUTH_METHODS = ("client_secret_basic", "client_secret_post")
# Parameters Connect sets itself, or its client's keyword arguments (`url`,
# `code_verifier`: passed twice they were a 500); `authorize_params` may not
# hold them.
RESERVED_PARAMS = frozenset(
    {
        "url",
        "code_verifier",
        "response_type",
        "client_id",
        "redirect_uri",
        "scope",
        "state",
        "code_challenge",
        "code_challenge_method",
    }
)
# Per grant: the fields a new credential must have, and those it may not.
REQUIRED = {
    AUTHORIZATION_CODE: ("authorize_url", "token_url", "client_id"),
    CLIENT_CREDENTIALS: ("token_url", "client_id", "client_secret"),
}
NOT_FOR = {CLIENT_CREDENTIALS: ("authorize_url", "authorize_params")}
# Changing one of these makes the stored tokens another client's: dropped.
OAUTH2_FIELDS = (
    "grant",
    "authorize_url",
    "token_url",
    "client_id",
    "client_secret",
    "scopes",
    "authorize_params",
    "client_auth",
    "connected",
    "reconnect_needed",
    "expires_at",
    "granted_scopes",
)


class HttpUrlField(serializers.CharField):
    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        if not outbound.is_http_url(value):
            raise serializers.ValidationError("A URL starting with http(s)://.")
        return value


class OAuth2Fields(serializers.Serializer):
    grant = serializers.ChoiceField(required=False, choices=GRANTS)
    authorize_url = HttpUrlField(required=False, max_length=2000)
    token_url = HttpUrlField(required=False, max_length=2000)
    client_id = serializers.CharField(required=False, max_length=500)
    client_secret = serializers.CharField(
        write_only=True, required=False, trim_whitespace=False
    )
    scopes = serializers.ListField(
        child=serializers.RegexField(r"^[\x21\x23-\x5B\x5D-\x7E]+$", max_length=200),
        required=False,
        max_length=50,
        help_text='oauth2: the scopes asked for, e.g. ["read", "write"].',
    )
    authorize_params = serializers.DictField(
        child=serializers.CharField(max_length=500),
        required=False,
        help_text="oauth2: extra parameters of the authorize URL "
        '(e.g. {"access_type": "offline", "prompt": "consent"}).',
    )
    client_auth = serializers.ChoiceField(
        required=False,
        choices=CLIENT_AUTH_METHODS,
        help_text="oauth2: how the client proves itself to the token endpoint "
        "(default client_secret_basic).",
    )
    connected = serializers.BooleanField(read_only=True)
    reconnect_needed = serializers.SerializerMethodField()
    expires_at = serializers.DateTimeField(
        source="token_expires_at", read_only=True, allow_null=True
    )
    granted_scopes = serializers.ListField(
        child=serializers.CharField(), read_only=True
    )

    OAUTH2_ANSWER = ("connected", "reconnect_needed", "expires_at", "granted_scopes")

    def get_reconnect_needed(self, credential) -> bool:
        return credential.token_status == credential.TokenStatus.RECONNECT_NEEDED

    def validate_authorize_params(self, value):
        reserved = sorted(RESERVED_PARAMS & set(value))
        if reserved:
            raise serializers.ValidationError(
                f"Weir sets {', '.join(reserved)} itself."
            )
        return value

    def oauth2_problems(self, attrs) -> dict:
        """Field errors of an oauth2 credential, given its grant."""
        stored = self.instance.public if self.instance is not None else {}
        grant = attrs.get("grant", stored.get("grant"))
        if grant is None:
            return {"grant": "This field is required."}
        if self.instance is not None and grant != stored.get("grant"):
            return {"grant": "The grant cannot change; create a new credential."}
        problems = {}
        for field in NOT_FOR.get(grant, ()):
            if field in attrs:
                problems[field] = f"A {grant} credential has no {field}."
        if self.instance is None:
            for field in REQUIRED[grant]:
                if field not in attrs:
                    problems[field] = "This field is required."
        return problems

    def forget_another_clients_tokens(self, credential, before: dict) -> None:
        """Drop the tokens (in memory; the caller saves) when an edit changed
        the token URL or the client: they belong to the client that was, and
        a refresh token must not be sent to another token endpoint."""
        if credential.kind != credential.Kind.OAUTH2 or all(
            credential.public.get(field) == before.get(field)
            for field in kinds.of(credential.kind).destination_fields
        ):
            return
        kept = {
            key: value
            for key, value in credential.secrets().items()
            if key not in TOKEN_KEYS
        }
        credential.set_secrets(kept)
        credential.token_status = credential.TokenStatus.NONE
        credential.token_expires_at = None
        credential.granted_scopes = []

    def oauth2_answer(self, credential, data: dict) -> dict:
        """`data` without an oauth2 field left unset (rather than shown as
        ""). The connection fields are always there: other kinds are never
        connected."""
        for field in OAUTH2_FIELDS:
            if field not in self.OAUTH2_ANSWER and field not in credential.public:
                data.pop(field, None)
        return data
