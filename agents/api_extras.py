"""The agent API's extra actions: Test connection and usage (`AgentViewSet`)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from agents.api_edit import ConnectionTestSerializer, check_connection
from agents.limits import ChatThrottled, count_user_call
from agents.providers import ProviderError
from agents.usage import MAX_DAYS, usage_of
from core.http.errors import (
    GatewayTimeout,
    Throttled,
    UpstreamError,
    ValidationFailed,
)


class AgentExtrasMixin:
    @extend_schema(
        request=ConnectionTestSerializer,
        responses=inline_serializer(
            "ConnectionTest",
            {
                "ok": serializers.BooleanField(),
                "reply": serializers.CharField(),
                "latency_ms": serializers.IntegerField(),
            },
        ),
    )
    @action(detail=False, methods=["post"], url_path="test-connection")
    def test_connection(self, request):
        """Ask a model for one word with the key an agent would use: 200
        `{ok, reply, latency_ms}`, or 502/504 saying what went wrong."""
        body = ConnectionTestSerializer(data=request.data, context={"request": request})
        body.is_valid(raise_exception=True)
        try:
            count_user_call(request.user)
            return Response(
                check_connection(
                    body.validated_data["model"], body.validated_data.get("credential")
                )
            )
        except ChatThrottled as throttled:
            raise Throttled(throttled.wait, throttled.message) from None
        except ProviderError as failure:
            error = GatewayTimeout if failure.code == "timeout" else UpstreamError
            raise error(failure.message) from failure

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "days", int, description=f"The last N UTC days, 1 to {MAX_DAYS} (30)."
            )
        ],
        responses=dict,
    )
    @action(detail=True, methods=["get"])
    def usage(self, request, pk=None):
        """Tokens and cost of the agent's model calls: totals, per UTC day, per
        user and per conversation. Its owner sees everyone's; others their own."""
        agent = self.get_object()
        raw = request.query_params.get("days", "30")
        if not raw.isdigit() or not 1 <= int(raw) <= MAX_DAYS:
            message = f"days must be a whole number from 1 to {MAX_DAYS}."
            raise ValidationFailed(message, details={"days": [message]})
        return Response(usage_of(agent, request.user, int(raw)))
