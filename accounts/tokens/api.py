"""`/api/tokens`: list, create and revoke the caller's own API tokens.

Session only (SESSION_ONLY): no token can make or revoke tokens, so a leaked
read token cannot mint itself a wider one. The token's text is in the create
answer and nowhere else, ever.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.tokens.models import DEFAULT_DAYS, SCOPES, ApiToken
from accounts.workspaces.fields import WorkspaceField


class ApiTokenSerializer(serializers.ModelSerializer):
    workspace = WorkspaceField(
        help_text="The one workspace the token reaches: one of yours (default: "
        "your personal workspace). It acts there with your role, narrowed by "
        "its scopes.",
    )
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPES), min_length=1, max_length=16
    )
    expires_at = serializers.DateTimeField(
        required=False,
        help_text=f"Default: {DEFAULT_DAYS} days from now; at most "
        "API_TOKEN_MAX_DAYS (366) days.",
    )

    class Meta:
        model = ApiToken
        fields = [
            "id",
            "name",
            "scopes",
            "workspace",
            "prefix",
            "expires_at",
            "last_used_at",
            "last_used_ip",
            "created_at",
        ]
        read_only_fields = [
            "id",
            "prefix",
            "last_used_at",
            "last_used_ip",
        ]

    def validate_expires_at(self, value):
        now = timezone.now()
        longest = settings.API_TOKEN_MAX_DAYS
        if value <= now:
            raise serializers.ValidationError("Choose a time in the future.")
        if value > now + timedelta(days=longest, minutes=5):
            raise serializers.ValidationError(
                f"A token may live {longest} days at most."
            )
        return value


class NewApiTokenSerializer(ApiTokenSerializer):
    token = serializers.CharField(
        read_only=True, help_text="The token itself: shown in this answer only."
    )

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "token"]


@extend_schema_view(
    create=extend_schema(responses={201: NewApiTokenSerializer}),
    destroy=extend_schema(
        responses={
            200: inline_serializer(
                "ApiTokenRevoked", {"success": serializers.BooleanField()}
            )
        }
    ),
)
class ApiTokenViewSet(
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The caller's tokens that are not revoked, newest first; anyone else's
    do not exist (404)."""

    serializer_class = ApiTokenSerializer
    # For the schema only (its path parameter is a UUID); requests read
    # get_queryset, the caller's own tokens.
    queryset = ApiToken.objects.none()
    rights = {
        "list": rights.SESSION_ONLY,
        "create": rights.SESSION_ONLY,
        "destroy": rights.SESSION_ONLY,
    }

    def get_queryset(self):
        return ApiToken.objects.for_user(self.request.user).filter(
            revoked_at__isnull=True
        )

    def create(self, request, *args, **kwargs):
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        expires_at = data.get("expires_at") or (
            timezone.now() + timedelta(days=DEFAULT_DAYS)
        )
        with transaction.atomic():
            token, value = ApiToken.issue(
                request.user,
                data["name"],
                data["scopes"],
                expires_at,
                workspace=data.get("workspace"),
            )
            record(
                "token.created",
                Actor.from_request(request),
                token,
                changes={
                    "kind": "personal",
                    "workspace": str(token.workspace_id),
                    "scopes": token.scopes,
                    "expires_at": expires_at.isoformat(),
                },
            )
        token.token = value
        return Response(NewApiTokenSerializer(token).data, status=201)

    def destroy(self, request, *args, **kwargs):
        """Revoke the token: its next request is a 401. It is not listed again."""
        token = self.get_object()
        with transaction.atomic():
            token.revoke()
            record("token.revoked", Actor.from_request(request), token)
        return Response({"success": True})
