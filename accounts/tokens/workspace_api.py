"""`/api/workspaces/:id/tokens`: a workspace's tokens (`weir_wst_…`).

A workspace token is a service account: no person behind it, a role cap of
at most editor, never `agents:chat`, and it keeps working after whoever made
it leaves the workspace. Only an admin of the workspace lists, makes and
revokes them, and only from a signed-in browser (SESSION_ONLY): no token
makes tokens. A workspace the caller is not a member of is 404.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.utils import timezone
from drf_spectacular.utils import extend_schema, extend_schema_view, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.tokens.api import ApiTokenSerializer
from accounts.tokens.models import (
    DEFAULT_DAYS,
    ROLE_CAPS,
    WORKSPACE_SCOPES,
    ApiToken,
)
from accounts.workspaces.permissions import InWorkspace


class WorkspaceTokenSerializer(ApiTokenSerializer):
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=WORKSPACE_SCOPES),
        min_length=1,
        max_length=16,
        help_text="Any scope but agents:chat.",
    )
    role_cap = serializers.ChoiceField(
        choices=ROLE_CAPS,
        default="editor",
        help_text="The most the token may do in the workspace; its scopes narrow it.",
    )
    created_by = serializers.CharField(
        source="created_by.username",
        read_only=True,
        default=None,
        allow_null=True,
        help_text="Who made it; null once they are deleted.",
    )

    class Meta(ApiTokenSerializer.Meta):
        fields = [*ApiTokenSerializer.Meta.fields, "role_cap", "created_by"]
        read_only_fields = [*ApiTokenSerializer.Meta.read_only_fields, "created_by"]


class NewWorkspaceTokenSerializer(WorkspaceTokenSerializer):
    token = serializers.CharField(
        read_only=True, help_text="The token itself: shown in this answer only."
    )

    class Meta(WorkspaceTokenSerializer.Meta):
        fields = [*WorkspaceTokenSerializer.Meta.fields, "token"]


@extend_schema_view(
    create=extend_schema(responses={201: NewWorkspaceTokenSerializer}),
    destroy=extend_schema(
        responses={
            200: inline_serializer(
                "WorkspaceTokenRevoked", {"success": serializers.BooleanField()}
            )
        }
    ),
)
class WorkspaceTokenViewSet(
    InWorkspace,
    mixins.ListModelMixin,
    mixins.CreateModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The workspace's tokens that are not revoked, newest first."""

    serializer_class = WorkspaceTokenSerializer
    # For the schema only (UUID path parameters); requests use get_queryset.
    queryset = ApiToken.objects.none()
    pagination_class = None
    rights = {
        "list": rights.SESSION_ONLY,
        "create": rights.SESSION_ONLY,
        "destroy": rights.SESSION_ONLY,
    }

    def workspace_right(self) -> str:
        """An admin's: the routes are session only, so `rights` says no more."""
        return rights.MEMBERS_MANAGE

    def get_queryset(self):
        return (
            super()
            .get_queryset()
            .workspace_tokens()
            .filter(revoked_at__isnull=True)
            .select_related("created_by")
        )

    def create(self, request, *args, **kwargs):
        workspace = self.workspace()
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        expires_at = data.get("expires_at") or (
            timezone.now() + timedelta(days=DEFAULT_DAYS)
        )
        with transaction.atomic():
            token, value = ApiToken.issue_for_workspace(
                workspace,
                request.user,
                data["name"],
                data["scopes"],
                expires_at,
                role_cap=data["role_cap"],
            )
            record(
                "token.created",
                Actor.from_request(request),
                token,
                changes={
                    "kind": "workspace",
                    "role_cap": token.role_cap,
                    "scopes": token.scopes,
                    "expires_at": expires_at.isoformat(),
                },
            )
        token.token = value
        return Response(NewWorkspaceTokenSerializer(token).data, status=201)

    def destroy(self, request, *args, **kwargs):
        """Revoke the token: its next request is a 401. It is not listed again."""
        token = self.get_object()
        with transaction.atomic():
            token.revoke()
            record("token.revoked", Actor.from_request(request), token)
        return Response({"success": True})
