"""The flow's signing secret: `POST/DELETE /api/flows/:id/webhook-secret`.

`POST {"scheme", "secret"?}` sets how deliveries are signed: `standard`
(Standard Webhooks; the default), `github`, `stripe` or `slack`. Stripe and
Slack make the secret and show it in their dashboards, so it must be given;
for the other two Weir makes one when none is given. The secret is returned
once, by the POST that sets it; the flow API only says whether one is set
(`webhook_signed`) and its scheme. Rotation replaces the old secret at once,
so the sender must switch in the same step.
"""

from __future__ import annotations

from secrets import token_hex

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.generics import get_object_or_404
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from accounts import rights
from accounts.audit.actor import Actor
from accounts.workspaces.permissions import WorkspaceRole
from flows.history.save import save_flow
from flows.models import Flow
from webhooks.signatures import SECRET_PREFIX, generate_secret, is_standard_secret

SCHEMES = Flow.SignatureScheme
# The providers that make the secret themselves.
GIVEN_BY_PROVIDER = (SCHEMES.STRIPE, SCHEMES.SLACK)


class SecretRequest(serializers.Serializer):
    scheme = serializers.ChoiceField(choices=SCHEMES.choices, default=SCHEMES.STANDARD)
    secret = serializers.CharField(
        required=False, min_length=8, max_length=200, trim_whitespace=True
    )

    def validate(self, attrs):
        scheme, secret = attrs["scheme"], attrs.get("secret")
        if secret is None and scheme in GIVEN_BY_PROVIDER:
            label = SCHEMES(scheme).label.split(" (")[0]
            message = f"Paste the signing secret {label} shows for this endpoint."
            raise serializers.ValidationError({"secret": message})
        standard = scheme == SCHEMES.STANDARD
        if secret is not None and standard and not is_standard_secret(secret):
            message = f"A Standard Webhooks secret is {SECRET_PREFIX} and base64."
            raise serializers.ValidationError({"secret": message})
        if secret is None:
            secret = generate_secret() if scheme == SCHEMES.STANDARD else token_hex(32)
        return {"scheme": scheme, "secret": secret}


class WebhookSecretView(APIView):
    """Create, rotate or remove the signing secret of a flow of the caller's
    workspaces (an editor's right)."""

    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]

    rights = {"post": rights.FLOWS_EDIT, "delete": rights.FLOWS_EDIT}

    def get_flow(self, pk) -> Flow:
        flow = get_object_or_404(Flow.objects.for_user(self.request.user), pk=pk)
        self.check_object_permissions(self.request, flow)
        return flow

    @extend_schema(
        request=SecretRequest,
        responses={
            201: inline_serializer(
                "WebhookSecret",
                {"secret": serializers.CharField(), "scheme": serializers.CharField()},
            )
        },
    )
    def post(self, request, pk):
        """Sets a new secret and scheme (replacing any old one) and returns
        the secret, this once."""
        flow = self.get_flow(pk)
        asked = SecretRequest(data=request.data or {})
        asked.is_valid(raise_exception=True)
        save_flow(
            flow,
            {
                "webhook_secret": asked.validated_data["secret"],
                "webhook_signature_scheme": asked.validated_data["scheme"],
            },
            actor=Actor.from_request(request),
            source="edit",
        )
        return Response(
            {"secret": flow.webhook_secret, "scheme": flow.webhook_signature_scheme},
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        request=None,
        responses={
            200: inline_serializer(
                "WebhookSecretRemoved", {"success": serializers.BooleanField()}
            )
        },
    )
    def delete(self, request, pk):
        """Removes the secret; the webhook then accepts unsigned requests."""
        flow = self.get_flow(pk)
        save_flow(
            flow,
            {"webhook_secret": "", "webhook_signature_scheme": SCHEMES.STANDARD},
            actor=Actor.from_request(request),
            source="edit",
        )
        return Response({"success": True})
