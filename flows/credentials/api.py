"""`/api/credentials`: list, create, edit and delete a user's credentials.

Secret fields are write-only: they go in, encrypted, and never come back; a
credential answers with its name, kind, public fields and `has_value`.
"""

from __future__ import annotations

import json
import re

from django.conf import settings
from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import person
from accounts.workspaces.fields import WorkspaceField
from accounts.workspaces.permissions import WorkspaceRole, require
from accounts.workspaces.personal import default_workspace
from accounts.workspaces.roles import CREDENTIALS_EDIT
from core.http import ratelimit
from core.http.errors import Conflict, Throttled, ValidationFailed
from core.net import outbound
from flows.credentials.models import (
    HTTP_KINDS,
    KIND_FIELDS,
    PUBLIC_FIELDS,
    SECRET_FIELDS,
    Credential,
)
from flows.credentials.oauth2 import tokens
from flows.credentials.oauth2.fields import OAUTH2_FIELDS, OAuth2Fields
from flows.credentials.probe import probe
from flows.credentials.usage import flows_using

MAX_SECRET_BYTES = 8 * 1024
NAME_PATTERN = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Header names as RFC 9110 tokens, so no value can smuggle in a line break.
HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
# A host name or an IP address: no spaces, no line breaks, nothing to inject.
HOST = re.compile(r"^[A-Za-z0-9.:_-]+$")
SECURITY_CHOICES = ("starttls", "tls", "none")
SSL_MODES = ("disable", "prefer", "require", "verify-ca", "verify-full")
# Fields a server credential may leave unset for their default (587/465/5432,
# starttls, prefer); an answer leaves them out rather than show "" as a number
# or a choice.
DEFAULTED_FIELDS = ("port", "security", "sslmode")


def _size(value) -> int:
    if isinstance(value, str):
        return len(value.encode())
    return len(json.dumps(value, ensure_ascii=False).encode())


def secret_field() -> serializers.CharField:
    return serializers.CharField(write_only=True, required=False, trim_whitespace=False)


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
            *OAUTH2_FIELDS,
            "has_value",
            "last_used_at",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "last_used_at", "created_at", "updated_at"]
        # (workspace, name) is checked by `check_name_free`, with its message.
        validators = []

    def to_representation(self, credential):
        data = super().to_representation(credential)
        shown = KIND_FIELDS[credential.kind]["public"]
        for field in PUBLIC_FIELDS:
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
        spec = KIND_FIELDS[kind]
        errors = {}
        for field in (*PUBLIC_FIELDS, *SECRET_FIELDS):
            if field in attrs and field not in (*spec["public"], *spec["secret"]):
                errors[field] = f"A {kind} credential has no {field}."
            elif field in attrs and _size(attrs[field]) > MAX_SECRET_BYTES:
                errors[field] = f"At most {MAX_SECRET_BYTES} bytes."
        wanted = [*spec["public"], *spec["secret"]]
        if kind == Credential.Kind.BASIC:
            wanted.remove("username")  # a password alone (an API key as password)
        # Optional: a relay that takes mail without a login, a server that
        # trusts its network (no password); the default port (587, 465 with
        # tls, 5432), security (starttls) and sslmode (prefer).
        optional = set(DEFAULTED_FIELDS)
        if kind == Credential.Kind.SMTP:
            optional.update({"username", "password"})
        if kind == Credential.Kind.POSTGRES:
            optional.add("password")
        if kind == Credential.Kind.OAUTH2:  # what it needs depends on its grant
            optional.update(wanted)
            errors.update(self.oauth2_problems(attrs))
        wanted = [field for field in wanted if field not in optional]
        for field in wanted:
            if field in attrs:
                continue
            if self.instance is not None:  # an edit keeps what it does not send
                continue
            errors[field] = "This field is required."
        if errors:
            raise serializers.ValidationError(errors)
        return attrs

    def save(self, **kwargs):
        attrs = self.validated_data
        kind = attrs.get("kind") or self.instance.kind
        spec = KIND_FIELDS[kind]
        public = dict(self.instance.public) if self.instance else {}
        before = dict(public)
        sent_public = [f for f in spec["public"] if f in attrs]
        public.update({f: attrs.pop(f) for f in sent_public})
        sent = {f: attrs.pop(f) for f in spec["secret"] if f in attrs}
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


class CredentialTestSerializer(serializers.Serializer):
    """The body of `POST /api/credentials/:id/test`; `context["kind"]` is the
    credential's kind."""

    url = serializers.CharField(
        required=False,
        max_length=4000,
        help_text="HTTP kinds (bearer, header, basic, query): where the GET goes.",
        error_messages={"blank": "The URL to send a GET to with this credential."},
    )

    def validate_url(self, value):
        if not outbound.is_http_url(value):
            raise serializers.ValidationError("A URL starting with http(s)://.")
        return value

    def validate(self, attrs):
        if self.context["kind"] in HTTP_KINDS and "url" not in attrs:
            raise serializers.ValidationError(
                {"url": "The URL to send a GET to with this credential."}
            )
        return attrs


def count_test(user) -> None:
    """Count one credential test against the caller's `CREDENTIAL_TEST_RATE`
    (a workspace token's caller, who has no id, under its workspace)."""
    key = user.pk or f"workspace-{getattr(user, 'token_workspace_id', None)}"
    rate = ratelimit.Rate.parse(settings.CREDENTIAL_TEST_RATE)
    wait = ratelimit.hit(f"credential-test:{key}", rate)
    if wait is not None:
        raise Throttled(
            wait,
            f"You tested more than {rate.limit} credentials in {rate.window} s; "
            "wait a moment.",
        )


class CredentialViewSet(viewsets.ModelViewSet):
    """The credentials of the user's workspaces: every member sees their names
    and kinds (never a value), editors change and test them; others' do not
    exist (404)."""

    serializer_class = CredentialSerializer
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    rights = {
        "list": rights.CREDENTIALS_VIEW,
        "retrieve": rights.CREDENTIALS_VIEW,
        "create": rights.CREDENTIALS_EDIT,
        "partial_update": rights.CREDENTIALS_EDIT,
        "destroy": rights.CREDENTIALS_EDIT,
        "disconnect": rights.CREDENTIALS_EDIT,
        # Whoever may make a flow use it (docs/credentials.md, "Testing").
        "test": rights.FLOWS_EDIT,
    }

    def get_queryset(self):
        return Credential.objects.for_user(self.request.user)

    def perform_create(self, serializer):
        serializer.save(created_by=person(self.request.user))

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "force", bool, description="Delete even while flows use it."
            )
        ],
        responses={
            200: inline_serializer(
                "CredentialDeleted", {"success": serializers.BooleanField()}
            )
        },
    )
    def destroy(self, request, *args, **kwargs):
        credential = self.get_object()
        force = request.query_params.get("force", "").lower() in ("1", "true", "yes")
        using = flows_using(credential)
        if using and not force:
            raise Conflict(
                f"{len(using)} flow(s) use this credential; change them, or "
                "delete with ?force=true.",
                details={
                    "flows": [{"id": str(flow.id), "name": flow.name} for flow in using]
                },
            )
        with transaction.atomic():
            record("credential.deleted", Actor.from_request(request), credential)
            credential.delete()
        return Response({"success": True})

    @extend_schema(
        request=CredentialTestSerializer,
        responses=inline_serializer(
            "CredentialTested",
            {"ok": serializers.BooleanField(), "message": serializers.CharField()},
        ),
    )
    @action(detail=True, methods=["post"])
    def test(self, request, pk=None):
        """Use the credential once (an HTTP kind: a GET to `url`; smtp: connect
        and log in; postgres: `SELECT 1`): 200 `{ok, message}` either way."""
        credential = self.get_object()
        body = CredentialTestSerializer(
            data=request.data, context={"kind": credential.kind}
        )
        body.is_valid(raise_exception=True)
        count_test(request.user)
        return Response(probe(credential, body.validated_data.get("url")))

    @extend_schema(request=None)
    @action(detail=True, methods=["post"])
    def disconnect(self, request, pk=None):
        """oauth2: forget the tokens (runs then fail until it is connected again)."""
        credential = self.get_object()
        if credential.kind != Credential.Kind.OAUTH2:
            raise ValidationFailed(f"{credential.name} is not an OAuth2 credential.")
        with transaction.atomic():
            locked = Credential.objects.select_for_update().get(pk=credential.pk)
            tokens.forget_tokens(locked, Credential.TokenStatus.NONE)
            record("credential.disconnected", Actor.from_request(request), locked)
        return Response(self.get_serializer(locked).data)
