"""`POST /api/flows/:id/move`: a flow to another of the caller's workspaces.

The caller must manage members in the flow's workspace (moving a flow out is
an admin's right) and edit flows in the target. Credential references are
mapped by name and kind to the target's credentials, as import does; any the
target lacks is a 400 naming them, and so is an enabled schedule past the
target's cap (SCHEDULED_FLOWS_PER_OWNER). An error flow left behind is unset. The
change goes through `save_flow` (a new version when the graph changed) and is
recorded as `flow.moved`; its webhook URL, runs and versions go with it.
The versions written before the move are scrubbed, in the same transaction,
of literals of the source's credential values (`[redacted:NAME]`): the
target's members read the history, redacted only with the target's credentials.
"""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.models import Workspace
from accounts.workspaces.permissions import require
from core.http.errors import ValidationFailed
from flows.credentials.literals import LiteralSecrets
from flows.credentials.portable import export_nodes, import_nodes
from flows.graph import GraphErrors
from flows.history.models import FlowVersion
from flows.history.save import save_flow
from flows.refs import check_called_flows
from flows.schedules.quota import check_schedule_quota


class MoveBody(serializers.Serializer):
    workspace = serializers.UUIDField(help_text="The workspace to move the flow to.")


VERSION_TEXT = ("name", "description", "input_schema", "nodes")


def scrub_history(flow, source_id) -> None:
    """The flow's stored versions without literals of `source_id`'s credential
    values (the source's members saw them redacted; the target's would not)."""
    literals = LiteralSecrets.of_workspace(source_id)
    for version in FlowVersion.objects.select_for_update().filter(flow=flow):
        content = {field: getattr(version, field) for field in VERSION_TEXT}
        clean, found = literals.flow(content)
        if found:
            for field in VERSION_TEXT:
                setattr(version, field, clean[field])
            version.save(update_fields=list(VERSION_TEXT))


class MoveMixin:
    """A FlowViewSet action: move the flow to another workspace."""

    @extend_schema(request=MoveBody)
    @action(detail=True, methods=["post"])
    def move(self, request, pk=None):
        flow = self.get_object()  # members.manage in the source (WorkspaceRole)
        body = MoveBody(data=request.data)
        body.is_valid(raise_exception=True)
        mine = Workspace.objects.for_user(request.user)
        target = mine.filter(pk=body.validated_data["workspace"]).first()
        if target is None:
            message = "No workspace of yours has this id."
            raise ValidationFailed(message, details={"workspace": [message]})
        require(request.user, target.pk, rights.FLOWS_EDIT)
        if target.pk == flow.workspace_id:
            return Response(self.get_serializer(flow).data)
        exported, refs = export_nodes(flow.nodes, flow.workspace_id)
        moved = import_nodes(exported, refs, target.pk)
        if moved.missing:
            names = ", ".join(f"{r['name']} ({r['kind']})" for r in moved.missing)
            raise ValidationFailed(
                f"Create these credentials in the target workspace first: {names}.",
                details={"credentials": moved.missing},
            )
        source = flow.workspace_id
        # Its key names its file in the source's directory (docs/git.md), and
        # may be another flow's in the target.
        changes = {"workspace": target, "nodes": moved.nodes, "key": ""}
        if flow.error_flow_id is not None:
            changes["error_flow"] = None
        actor = Actor.from_request(request)
        with transaction.atomic():
            errors = GraphErrors()
            check_called_flows(moved.nodes, target.pk, errors)
            # A schedule is new to the target: its cap holds (row locked till commit).
            check_schedule_quota(moved.nodes, target.pk, None, errors)
            if errors:
                raise ValidationFailed(errors.summary(), details=errors.as_details())
            scrub_history(flow, source)
            save_flow(flow, changes, actor=actor, source="move")
            # In both workspaces' logs: the one it left and the one it joined.
            for workspace_id in (source, target.pk):
                record(
                    "flow.moved",
                    actor,
                    flow,
                    changes={"from": str(source), "to": str(target.pk)},
                    workspace_id=workspace_id,
                )
        return Response(self.get_serializer(flow).data)
