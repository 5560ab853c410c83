"""`/api/credentials`: list, create, edit, test and delete a user's credentials.

Secret fields are write-only: they go in, encrypted, and never come back; a
credential answers with its name, kind, public fields and `has_value`
(flows/credentials/serializers.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import transaction
from django.db.models import RestrictedError
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import person
from accounts.workspaces.permissions import WorkspaceRole
from core.http import ratelimit
from core.http.errors import Conflict, Throttled, ValidationFailed
from core.net import outbound
from flows.credentials import kinds
from flows.credentials.models import Credential
from flows.credentials.oauth2 import tokens
from flows.credentials.probe import probe
from flows.credentials.serializers import CredentialSerializer
from flows.credentials.usage import flows_using


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
        if self.context["kind"] in kinds.http_kinds() and "url" not in attrs:
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
        try:
            with transaction.atomic():
                record("credential.deleted", Actor.from_request(request), credential)
                credential.delete()
        except RestrictedError as error:
            # What holds it from above (an agent's API key): never forced away.
            users = sorted(error.restricted_objects, key=str)
            raise Conflict(
                f"{len(users)} {users[0]._meta.verbose_name}(s) use this "
                "credential; choose another for them first (the force option "
                "is for flows only).",
                details={
                    "used_by": [
                        {
                            "type": user._meta.verbose_name,
                            "id": str(user.pk),
                            "name": str(user),
                        }
                        for user in users
                    ]
                },
            ) from None
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
        if kinds.get(credential.kind) is None:
            raise ValidationFailed(kinds.missing_message(credential.kind))
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
