"""`/api/workspaces/:id/variables` (docs/api.md): every member lists them;
editors and up create, change and delete them. A workspace the caller is not
a member of is 404; the rules live in accounts/workspaces/variables.py."""

from __future__ import annotations

from contextlib import contextmanager

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, viewsets
from rest_framework.response import Response

from accounts.audit.actor import Actor
from accounts.workspaces.models import Variable
from accounts.workspaces.permissions import InWorkspace
from accounts.workspaces.roles import FLOWS_EDIT, FLOWS_VIEW
from accounts.workspaces.variables import (
    Invalid,
    Taken,
    create_variable,
    delete_variable,
    update_variable,
)
from core.http.errors import Conflict, ValidationFailed

DELETED = inline_serializer("VariableDeleted", {"success": serializers.BooleanField()})


class VariableSerializer(serializers.ModelSerializer):
    # Checked by accounts/workspaces/variables.py, which words the messages.
    name = serializers.CharField(trim_whitespace=False)
    value = serializers.CharField(allow_blank=True, trim_whitespace=False)

    class Meta:
        model = Variable
        fields = ["id", "name", "value", "created_at", "updated_at"]
        read_only_fields = ["id", "created_at", "updated_at"]


class VariableViewSet(InWorkspace, viewsets.ModelViewSet):
    """The variables of one of the caller's workspaces (404 for any other)."""

    serializer_class = VariableSerializer
    # For the schema only (a UUID path parameter); requests use get_queryset.
    queryset = Variable.objects.none()
    pagination_class = None
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    rights = {
        "list": FLOWS_VIEW,
        "retrieve": FLOWS_VIEW,
        "create": FLOWS_EDIT,
        "partial_update": FLOWS_EDIT,
        "destroy": FLOWS_EDIT,
    }

    def create(self, request, *args, **kwargs):
        workspace = self.workspace()
        body = VariableSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with refusals():
            variable = create_variable(
                workspace, data["name"], data["value"], Actor.from_request(request)
            )
        return Response(VariableSerializer(variable).data, status=201)

    def partial_update(self, request, *args, **kwargs):
        variable = self.get_object()
        body = VariableSerializer(variable, data=request.data, partial=True)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with refusals():
            update_variable(
                variable,
                data.get("name", variable.name),
                data.get("value", variable.value),
                Actor.from_request(request),
            )
        return Response(VariableSerializer(variable).data)

    @extend_schema(responses={200: DELETED})
    def destroy(self, request, *args, **kwargs):
        delete_variable(self.get_object(), Actor.from_request(request))
        return Response({"success": True})


@contextmanager
def refusals():
    """The rules' refusals as the API's errors: 400 naming the field, 409 for
    a name already taken or a full workspace."""
    try:
        yield
    except Invalid as error:
        raise ValidationFailed(
            str(error), details={error.field: [str(error)]}
        ) from None
    except Taken as error:
        raise Conflict(str(error)) from None
