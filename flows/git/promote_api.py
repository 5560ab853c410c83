"""`POST /api/workspaces/:id/promote`: copy chosen flows into another workspace.

The body is `{"to": <workspace id>, "flows": [ids or keys], "dry_run": bool}`
(docs/git.md); the answer is the plan of flows/git/promote.py (a diff per
flow) and whether it was applied. Rewriting another workspace's flows is an
admin's right there, and choosing what leaves this one an admin's here: the
caller is an admin of both. A workspace the caller is not a member of is 404
as the path, 400 as `to` (the same answer whether it exists or not).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import rights
from accounts.audit.actor import Actor
from accounts.workspaces.models import Workspace
from accounts.workspaces.permissions import require
from core.http.errors import Conflict, NotFound, ValidationFailed
from flows.git.promote import (
    UnknownFlows,
    apply_promotion,
    missing_by_flow,
    plan_promotion,
)
from flows.git.sync import BadFile, MissingCredentials

MAX_FLOWS = 200


class PromoteBody(serializers.Serializer):
    to = serializers.UUIDField(help_text="The workspace the flows go to.")
    flows = serializers.ListField(
        child=serializers.CharField(max_length=80),
        min_length=1,
        max_length=MAX_FLOWS,
        help_text="Flows of this workspace, by id or key.",
    )
    dry_run = serializers.BooleanField(default=False)


def promote(request, source, target, refs: list[str], *, dry_run: bool) -> dict:
    """Plan (and unless `dry_run` apply) a promotion; errors in the envelope.
    Shared by the API and the promotion page."""
    try:
        plan = plan_promotion(source, target, refs)
    except UnknownFlows as error:
        raise ValidationFailed(str(error), details={"flows": error.unknown}) from None
    except BadFile as error:
        flow = error.name.removesuffix(".json")
        raise ValidationFailed(
            f"{flow}: {error.message}", details={"flow": flow, "problem": error.message}
        ) from None
    except MissingCredentials as error:
        missing = missing_by_flow(error.missing)
        names = ", ".join(f"{ref['name']} ({ref['kind']})" for ref in missing)
        raise Conflict(
            f"Create these credentials in {target.name} first: {names}.",
            code="missing_credentials",
            details={"missing_credentials": missing},
        ) from None
    if not dry_run:
        apply_promotion(plan, Actor.from_request(request))
    return {
        "from": str(source.pk),
        "to": str(target.pk),
        **plan.as_dict(),
        "applied": not dry_run,
    }


def target_of(request, source, target_id) -> Workspace:
    """The target workspace, where the caller must be an admin too."""
    mine = Workspace.objects.for_user(request.user)
    target = mine.filter(pk=target_id).first()
    if target is None:
        message = "No workspace of yours has this id."
        raise ValidationFailed(message, details={"to": [message]})
    if target.pk == source.pk:
        message = "Promote to another workspace than the flows'."
        raise ValidationFailed(message, details={"to": [message]})
    require(request.user, target.pk, rights.MEMBERS_MANAGE)
    return target


class WorkspacePromoteView(APIView):
    rights = {"post": rights.MEMBERS_MANAGE}

    @extend_schema(request=PromoteBody, responses=dict)
    def post(self, request, workspace_id):
        mine = Workspace.objects.for_user(request.user)
        source = mine.filter(pk=workspace_id).first()
        if source is None:
            raise NotFound("No workspace of yours has this id.")
        require(request.user, source.pk, rights.MEMBERS_MANAGE)
        if not isinstance(request.data, dict):
            raise ValidationFailed("The body must be a JSON object {to, flows}.")
        body = PromoteBody(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        target = target_of(request, source, options["to"])
        answer = promote(
            request, source, target, options["flows"], dry_run=options["dry_run"]
        )
        return Response(answer)
