"""The body and answer of `/api/credentials`: `CredentialSerializer`.

Which fields a kind takes, which it requires and which are secret come from
the registry (flows/credentials/kinds.py), plugin kinds included; the fields
with checks of their own (a host, a port, an address, an oauth2 grant's) are
declared here, and a plugin kind's other fields are added as plain ones
(`kind_fields.plugin_field`). Secret fields are write-only.
"""

from __future__ import annotations

import json
import re

from django.db import transaction
from rest_framework import serializers

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.fields import WorkspaceField
from accounts.workspaces.permissions import require
from accounts.workspaces.personal import default_workspace
from accounts.workspaces.roles import CREDENTIALS_EDIT
from flows.credentials import kinds
from flows.credentials.kind_fields import plugin_field
from flows.credentials.models import Credential
from flows.credentials.oauth2.fields import OAUTH2_FIELDS, OAuth2Fields

MAX_SECRET_BYTES = 8 * 1024
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Header names as RFC 9110 tokens, so no value can smuggle in a line break.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# A host name or an IP address: no spaces, no line breaks, nothing to inject.
HOST = re.compile(r"^[A-Za-z0-9.:_-]+$")
SECURITY_CHOICES = ("starttls", "tls", "none")
SSL_MODES = ("disable", "prefer", "require", "verify-ca", "verify-full")
# The fields declared below, with checks of their own.
DECLARED = (
    "header_name",
    "username",
    "param_name",
    "host",
    "port",
    "security",
    "from_address",
    "database",
    "sslmode",
    "value",
    "token",
    "password",
    "values",
)
# Fields a server credential may leave unset for their default (587/465/5432,
# starttls, prefer); an answer leaves them out rather than show "" as a number
# or a choice.
DEFAULTED_FIELDS = ("port", "security", "sslmode")


def _size(value) -> int:
    if isinstance(value, str):
        return len(value.encode())
    return len(json.dumps(value, ensure_ascii=False).encode())


class CredentialSerializer(OAuth2Fields, serializers.ModelSerializer):
    header_name = serializers.CharField(required=False, max_length=200)
    username = serializers.CharField(
        required=False, allow_blank=True, max_length=MAX_SECRET_BYTES
    )
    param_name = serializers.CharField(required=False, max_length=200)
    # smtp and postgres: where the server is (flows/credentials/models.py).
    host = serializers.CharField(required=False, max_length=253)
    port = serializers.IntegerField(required=False, min_value=1, max_value=65535)
    security = serializers.ChoiceField(
        required=False,
        choices=SECURITY_CHOICES,
        help_text="smtp: starttls, tls, or none (a host on OUTBOUND_ALLOWLIST only).",
    )
    from_address = serializers.EmailField(required=False, max_length=254)
    database = serializers.CharField(required=False, max_length=63)
    sslmode = serializers.ChoiceField(required=False, choices=SSL_MODES)
    value = serializers.CharField(
        write_only=True, required=False, trim_whitespace=False
    )
    token = serializers.CharField(
        write_only=True, required=False, trim_whitespace=False
    )
    password = serializers.CharField(
        write_only=True, required=False, trim_whitespace=False
    )
    values = serializers.DictField(
        child=serializers.CharField(trim_whitespace=False),
        write_only=True,
        required=False,
        allow_empty=False,
    )
    kind = serializers.CharField(
        max_length=64, help_text="A registered kind: GET /api/credential-kinds."
    )
    has_value = serializers.BooleanField(read_only=True)
    # Set on create only; a workspace the user is not a member of reads as missing.
    workspace = WorkspaceField(right=CREDENTIALS_EDIT)

    class Meta:
        model = Credential
        fields = [
            "id",
            "workspace",
            "name",
            "kind",
            *DECLARED,
            *OAUTH2_FIELDS,
            "has_value",
            "last_used_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "last_used_at", "created_at", "updated_at"]
        # (workspace, name) is checked by `check_name_free`, with its message.
        validators = []

    def get_fields(self):
        """The declared fields, and a plain one for each field of a plugin
        kind that no declared field covers."""
        fields = super().get_fields()
        for spec in kinds.all_kinds():
            for one in spec.fields:
                if one.name not in fields:
                    fields[one.name] = plugin_field(one)
        return fields

    def to_representation(self, credential):
        data = super().to_representation(credential)
        spec = kinds.get(credential.kind)
        shown = spec.public_fields if spec else ()
        for field in kinds.public_fields():
            if field in shown and field in credential.public:
                data[field] = credential.public[field]
            elif field in shown and field not in DEFAULTED_FIELDS:
                data[field] = ""
            else:  # another kind's, or unset so its default applies
                data.pop(field, None)
        return self.oauth2_answer(credential, data)

    def validate_name(self, value):
        if not NAME_PATTERN.match(value):
            raise serializers.ValidationError(
                "Use letters, digits and underscores, not starting with a digit, "
                "so templates can read it as {{ secrets.NAME }}."
            )
        return value

    def check_name_free(self, attrs) -> None:
        """One credential per name in a workspace (the constraint's rule, said
        as a field error before the INSERT would fail)."""
        if self.instance is not None:
            workspace = self.instance.workspace
        else:
            workspace = attrs.get("workspace")
            if workspace is None:
                user = self.context["request"].user
                workspace = default_workspace(user)
                require(user, workspace.pk, CREDENTIALS_EDIT)
            attrs["workspace"] = workspace
        name = attrs.get("name")
        taken = Credential.objects.filter(workspace=workspace, name=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if name is not None and taken.exists():
            raise serializers.ValidationError(
                {"name": ["You already have a credential so named."]}
            )

    def validate_kind(self, value):
        if kinds.get(value) is None:
            names = ", ".join(spec.name for spec in kinds.all_kinds())
            raise serializers.ValidationError(
                f"{value!r} is not a credential kind; one of: {names}."
            )
        return value

    def validate_host(self, value):
        if not HOST.match(value):
            raise serializers.ValidationError("A host name or an IP address.")
        return value

    def validate_header_name(self, value):
        if not HEADER_NAME.match(value):
            raise serializers.ValidationError("Not a valid HTTP header name.")
        return value

    def validate(self, attrs):
        self.check_name_free(attrs)
        kind = attrs.get("kind", self.instance.kind if self.instance else None)
        if self.instance is not None and kind != self.instance.kind:
            raise serializers.ValidationError(
                {"kind": "The kind cannot change; create a new credential."}
            )
        spec = kinds.get(kind)
        if spec is None:  # its plugin was removed since it was saved
            raise serializers.ValidationError({"kind": kinds.missing_message(kind)})
        errors = {}
        for field in (*kinds.public_fields(), *kinds.secret_fields()):
            if field in attrs and field not in (
                *spec.public_fields,
                *spec.secret_fields,
            ):
                errors[field] = f"A {kind} credential has no {field}."
            elif field in attrs and _size(attrs[field]) > MAX_SECRET_BYTES:
                errors[field] = f"At most {MAX_SECRET_BYTES} bytes."
        if kind == Credential.Kind.OAUTH2:  # what it needs depends on its grant
            errors.update(self.oauth2_problems(attrs))
        if self.instance is None:  # an edit keeps what it does not send
            for one in spec.fields:
                if one.required and one.name not in attrs:
                    errors[one.name] = "This field is required."
        else:
            errors.update(self.secrets_to_send_again(spec, attrs))
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def secrets_to_send_again(self, spec, attrs) -> dict:
        """Field errors for the stored secrets an edit must send again: those
        of a kind whose destination it changes (a host, a port, a token URL,
        the client, the transport's security).

        An edit keeps the secrets it does not send, so without this a caller
        who may edit credentials but never read them (a `credentials:write`
        token, an editor) pointed a team's password or client secret at a
        server of their own, and the next run sent it there (S18).
        """
        stored = self.instance.public
        moved = [
            one.label
            for one in spec.fields
            if one.destination
            and one.name in attrs
            and attrs[one.name] != stored.get(one.name)
        ]
        if not moved:
            return {}
        kept = self.instance.secrets()
        message = (
            f"Enter it again: {', '.join(moved)} changed, and a stored secret is "
            "only ever sent where it was entered for."
        )
        return {
            name: message
            for name in spec.secret_fields
            if kept.get(name) and name not in attrs
        }

    def save(self, **kwargs):
        attrs = self.validated_data
        kind = attrs.get("kind") or self.instance.kind
        spec = kinds.of(kind)
        public = dict(self.instance.public) if self.instance else {}
        before = dict(public)
        sent_public = [f for f in spec.public_fields if f in attrs]
        public.update({f: attrs.pop(f) for f in sent_public})
        sent = {f: attrs.pop(f) for f in spec.secret_fields if f in attrs}
        created = self.instance is None
        credential = self.instance or Credential(kind=kind, **kwargs)
        credential.public = public
        # A new server credential without a password stores nothing encrypted
        # (`has_value` false).
        if sent:
            secrets = credential.secrets() if self.instance else {}
            secrets.update(sent)
            credential.set_secrets(secrets)
        if self.instance is not None:
            self.forget_another_clients_tokens(credential, before)
        for field, value in attrs.items():
            setattr(credential, field, value)
        actor = Actor.from_request(self.context["request"])
        with transaction.atomic():
            credential.save()
            if created:
                record("credential.created", actor, credential, changes={"kind": kind})
            else:
                changed = sorted([*attrs, *sent_public])
                record(
                    "credential.updated",
                    actor,
                    credential,
                    changes={"fields": changed, "secret_changed": bool(sent)},
                )
        self.instance = credential
        return credential
