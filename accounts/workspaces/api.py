"""`/api/workspaces`, `/api/workspaces/:id/members` and `…/invitations` (docs/api.md).

Every member lists a workspace and its members; an owner renames or deletes
it; an admin invites, re-roles and removes members (only an owner touches
owners), and lists and withdraws the invitations waiting for an answer; an
invited account joins when it accepts (accounts/workspaces/invitations.py);
anyone may leave. A workspace the caller is not a member of is 404.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import OuterRef, Subquery
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import mixins, serializers, viewsets
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.rights import SESSION_ONLY
from accounts.workspaces.access import memberships_of
from accounts.workspaces.invitations import (
    ADDRESS_LENGTH,
    INVITED,
    Invitation,
    TooManyInvitations,
    invite,
    withdraw,
)
from accounts.workspaces.members import (
    LastOwner,
    TooManyWorkspaces,
    change_role,
    create_workspace,
    find_user,
    refusal,
    remove_member,
)
from accounts.workspaces.models import Membership, Workspace
from accounts.workspaces.permissions import InWorkspace, WorkspaceRole
from accounts.workspaces.roles import FLOWS_VIEW, MEMBERS_MANAGE, WORKSPACE_OWN
from core.http.errors import Conflict

LAST_OWNER = "A workspace keeps at least one owner: make someone else owner first."
DELETED = inline_serializer("WorkspaceDeleted", {"success": serializers.BooleanField()})


def may_manage(user, workspace_id, *roles) -> None:
    """403 unless `user` may manage members with `roles` (before or after a
    change; `members.refusal` says why not)."""
    reason = refusal(user, workspace_id, *roles)
    if reason:
        raise PermissionDenied(reason)


class WorkspaceSerializer(serializers.ModelSerializer):
    personal = serializers.BooleanField(source="is_personal", read_only=True)
    role = serializers.CharField(
        read_only=True, help_text="The caller's role in the workspace."
    )

    class Meta:
        model = Workspace
        fields = ["id", "name", "slug", "personal", "role", "created_at"]
        read_only_fields = ["id", "slug", "created_at"]


class WorkspaceViewSet(viewsets.ModelViewSet):
    """The caller's workspaces, each with the caller's role."""

    serializer_class = WorkspaceSerializer
    # For the schema only (a UUID path parameter); requests use get_queryset.
    queryset = Workspace.objects.none()
    pagination_class = None
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]
    # Making a workspace is anyone's, in a signed-in browser (no token makes
    # one: a token reaches one workspace); they become its owner.
    rights = {
        "list": FLOWS_VIEW,
        "retrieve": FLOWS_VIEW,
        "create": SESSION_ONLY,
        "partial_update": WORKSPACE_OWN,
        "destroy": WORKSPACE_OWN,
    }

    def get_queryset(self):
        user = self.request.user
        role = memberships_of(user).filter(workspace_id=OuterRef("pk"))
        workspaces = Workspace.objects.for_user(user)
        return workspaces.annotate(role=Subquery(role.values("role")[:1]))

    def perform_create(self, serializer):
        try:
            workspace = create_workspace(
                serializer.validated_data["name"],
                self.request.user,
                Actor.from_request(self.request),
            )
        except TooManyWorkspaces as refused:
            raise Conflict(str(refused)) from None
        workspace.role = Membership.Role.OWNER
        serializer.instance = workspace

    def perform_update(self, serializer):
        before = serializer.instance.name
        with transaction.atomic():
            workspace = serializer.save()
            if workspace.name != before:
                record(
                    "workspace.renamed",
                    Actor.from_request(self.request),
                    workspace,
                    changes={"from": before, "to": workspace.name},
                )

    @extend_schema(responses={200: DELETED})
    def destroy(self, request, *args, **kwargs):
        """409 for a personal workspace, or one still holding flows,
        credentials or agents (move or delete them first)."""
        workspace = self.get_object()
        if workspace.is_personal:
            raise Conflict("A personal workspace cannot be deleted.")
        held = {
            "flows": workspace.flows.count(),
            "credentials": workspace.credentials.count(),
            "agents": workspace.agents.count(),
        }
        if any(held.values()):
            listed = ", ".join(f"{n} {what}" for what, n in held.items() if n)
            raise Conflict(
                f"The workspace still holds {listed}; delete or move them first.",
                details=held,
            )
        with transaction.atomic():
            record("workspace.deleted", Actor.from_request(request), workspace)
            workspace.delete()
        return Response({"success": True})


class MemberSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)
    user_id = serializers.IntegerField(read_only=True)
    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )
    user = serializers.CharField(
        write_only=True,
        max_length=ADDRESS_LENGTH,
        help_text="Invite: a username or e-mail (the answer is the same whether "
        "or not it has an account).",
    )
    role = serializers.ChoiceField(choices=Membership.Role.choices)

    class Meta:
        model = Membership
        fields = [
            "id",
            "user",
            "user_id",
            "username",
            "role",
            "invited_by",
            "created_at",
        ]
        read_only_fields = ["id", "created_at"]


class RoleSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


INVITED_ANSWER = inline_serializer(
    "MemberInvited",
    {"invited": serializers.BooleanField(), "message": serializers.CharField()},
)


class MemberViewSet(InWorkspace, viewsets.ModelViewSet):
    """The members of one of the caller's workspaces (404 for any other)."""

    serializer_class = MemberSerializer
    # For the schema only (a UUID path parameter); requests use get_queryset.
    queryset = Membership.objects.none()
    pagination_class = None
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    # Checked in each action: owners are touched only by owners, and anyone
    # may remove themselves (leave).
    rights = {
        "list": FLOWS_VIEW,
        "retrieve": FLOWS_VIEW,
        "create": MEMBERS_MANAGE,
        "partial_update": MEMBERS_MANAGE,
        "destroy": MEMBERS_MANAGE,
    }

    def workspace_right(self) -> None:
        return None  # each action checks (`may_manage`); any member lists

    def get_queryset(self):
        return super().get_queryset().select_related("user", "invited_by")

    @extend_schema(responses={202: INVITED_ANSWER})
    def create(self, request, *args, **kwargs):
        """Invite an account: 202 with the same answer whether or not the name
        has one, or is a member already (nobody learns who has an account)."""
        workspace = self.workspace()
        body = MemberSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        role = body.validated_data["role"]
        may_manage(request.user, workspace.pk, role)
        typed = body.validated_data["user"].strip()
        actor = Actor.from_request(request)
        try:
            invite(workspace, find_user(typed), typed, role, actor)
        except TooManyInvitations as refused:
            raise Conflict(str(refused)) from None
        return Response({"invited": True, "message": INVITED}, status=202)

    @extend_schema(request=RoleSerializer)
    def partial_update(self, request, *args, **kwargs):
        membership = self.get_object()
        body = RoleSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        role = body.validated_data["role"]
        may_manage(request.user, membership.workspace_id, membership.role, role)
        try:
            change_role(membership, role, Actor.from_request(request))
        except LastOwner:
            raise Conflict(LAST_OWNER) from None
        except TooManyWorkspaces as refused:
            raise Conflict(str(refused)) from None
        return Response(MemberSerializer(membership).data)

    @extend_schema(responses={200: DELETED})
    def destroy(self, request, *args, **kwargs):
        membership = self.get_object()
        if membership.user_id != request.user.pk:
            may_manage(request.user, membership.workspace_id, membership.role)
        try:
            remove_member(membership, Actor.from_request(request))
        except LastOwner:
            raise Conflict(LAST_OWNER) from None
        return Response({"success": True})


class InvitationSerializer(serializers.ModelSerializer):
    """What was typed, never whom it reached: the list looks the same whether
    or not a name has an account."""

    invited_by = serializers.CharField(
        source="invited_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = Invitation
        fields = ["id", "address", "role", "invited_by", "created_at"]
        read_only_fields = fields


class InvitationViewSet(
    InWorkspace,
    mixins.ListModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """The invitations of one workspace waiting for an answer: an admin's to
    list and withdraw (an owner's invitation needs `workspace.own`, as
    sending it did)."""

    serializer_class = InvitationSerializer
    # For the schema only (a UUID path parameter); requests use get_queryset.
    queryset = Invitation.objects.none()
    pagination_class = None
    rights = {"list": MEMBERS_MANAGE, "destroy": MEMBERS_MANAGE}

    def get_queryset(self):
        return super().get_queryset().select_related("invited_by", "workspace")

    @extend_schema(responses={200: DELETED})
    def destroy(self, request, *args, **kwargs):
        invitation = self.get_object()
        may_manage(request.user, invitation.workspace_id, invitation.role)
        withdraw(invitation, Actor.from_request(request))
        return Response({"success": True})
