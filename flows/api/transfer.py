"""Export and import of flows (`GET /api/flows/:id/export`, `POST
/api/flows/import`): the portable JSON of flows/api/portable.py, credential
references remapped by name and kind into the importing workspace."""

from __future__ import annotations

import uuid

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.workspaces.access import person
from accounts.workspaces.models import Workspace
from accounts.workspaces.permissions import require
from accounts.workspaces.personal import default_workspace
from accounts.workspaces.roles import FLOWS_EDIT
from core.http.errors import ValidationFailed
from flows.api.portable import (
    EXPORTED_FIELDS,
    FORMAT_VERSION,
    export_filename,
    export_flow,
    imported_nodes,
)
from flows.credentials.portable import import_nodes


def uuid_or_none(value: str):
    """A query parameter as a UUID; a malformed one matches nothing."""
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def check_weir_version(document) -> None:
    """Refuse anything but an export of a format this server reads."""
    if not isinstance(document, dict):
        raise ValidationFailed("The body must be a flow export (a JSON object).")
    version = document.get("weir_version")
    if version != FORMAT_VERSION or isinstance(version, bool):
        message = (
            "This is not a Weir flow export (no weir_version)."
            if version is None
            else f"weir_version {version!r} is not one this server reads "
            f"(it reads {FORMAT_VERSION})."
        )
        raise ValidationFailed(message, details={"weir_version": [message]})


def name_node_problems(error: ValidationFailed, nodes) -> ValidationFailed:
    """Add each problem's node id and name, so an import's report reads by node."""
    problems = (error.details or {}).get("nodes") if isinstance(nodes, list) else None
    for problem in problems or []:
        node = nodes[problem["index"]] if problem["index"] < len(nodes) else None
        if isinstance(node, dict):
            problem["node_id"] = node.get("id")
            problem["node_name"] = node.get("name")
    return error


class TransferMixin:
    """The flow viewset's export action and the body of its import action
    (the action itself stays on the viewset, whose schema names its serializer)."""

    @extend_schema(responses=dict)
    @action(detail=True, methods=["get"])
    def export(self, request, pk=None):
        """The flow as portable JSON (`weir_version`, no secrets), as a download."""
        flow = self.get_object()
        response = Response(export_flow(flow))
        response["Content-Disposition"] = (
            f'attachment; filename="{export_filename(flow)}"'
        )
        return response

    def _import(self, request):
        document = request.data
        check_weir_version(document)
        fields = {key: document[key] for key in EXPORTED_FIELDS if key in document}
        workspace = self.import_workspace(request)
        fields["workspace"] = workspace.pk
        if isinstance(fields.get("nodes"), list):
            fields["nodes"] = self._with_own_credentials(
                document, imported_nodes(fields["nodes"]), workspace.pk
            )
        serializer = self.get_serializer(data=fields)
        try:
            serializer.is_valid(raise_exception=True)
        except ValidationFailed as error:
            raise name_node_problems(error, fields.get("nodes")) from None
        serializer.save(created_by=person(request.user))
        return Response(serializer.data, status=201)

    def import_workspace(self, request) -> Workspace:
        """Where an import lands: `?workspace=` (one where the user may edit
        flows; another reads as missing, 400) or the user's personal one."""
        wanted = request.query_params.get("workspace")
        if not wanted:
            workspace = default_workspace(request.user)
            require(request.user, workspace.pk, FLOWS_EDIT)
            return workspace
        mine = Workspace.objects.for_user(request.user)
        workspace = mine.filter(pk=uuid_or_none(wanted)).first()
        if workspace is None:
            message = "No workspace of yours has this id."
            raise ValidationFailed(message, details={"workspace": [message]})
        require(request.user, workspace.pk, FLOWS_EDIT)
        return workspace

    def _with_own_credentials(self, document, nodes: list, workspace_id) -> list:
        """The nodes with credential references mapped to the workspace's
        credentials by name and kind; 400 naming those it lacks."""
        try:
            imported = import_nodes(nodes, document.get("credentials"), workspace_id)
        except ValueError as malformed:
            raise ValidationFailed(
                str(malformed), details={"credentials": [str(malformed)]}
            ) from None
        if imported.missing:
            names = ", ".join(
                f"{ref['name']} ({ref['kind']})" for ref in imported.missing
            )
            raise ValidationFailed(
                f"Create these credentials first, then import again: {names}.",
                details={"credentials": imported.missing},
            )
        return imported.nodes
