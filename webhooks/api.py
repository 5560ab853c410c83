"""The flow's signing secret: `POST/DELETE /api/flows/:id/webhook-secret`.

The secret is returned once, by the POST that creates (or rotates) it; the flow
API only says whether one is set (`webhook_signed`). Rotation replaces the old
secret at once, so the sender must switch in the same step.
"""

from __future__ import annotations

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
from webhooks.signatures import generate_secret


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
        request=None,
        responses={
            201: inline_serializer("WebhookSecret", {"secret": serializers.CharField()})
        },
    )
    def post(self, request, pk):
        """Sets a new secret (replacing any old one) and returns it, this once."""
        flow = self.get_flow(pk)
        save_flow(
            flow,
            {"webhook_secret": generate_secret()},
            actor=Actor.from_request(request),
            source="edit",
        )
        return Response({"secret": flow.webhook_secret}, status=status.HTTP_201_CREATED)

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
            {"webhook_secret": ""},
            actor=Actor.from_request(request),
            source="edit",
        )
        return Response({"success": True})
