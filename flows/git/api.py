"""`POST /api/workspaces/:id/sync`: apply a directory of flow files from CI.

The body is the directory as a JSON bundle, `{"files": {"name.json": {...}},
"prune": bool, "dry_run": bool}` (docs/git.md); the answer is the plan of
flows/git/sync.py and whether it was applied. Rewriting every flow of a
workspace (and with `prune` deleting some) is an admin's right; a workspace
token, at most an editor, may do it when its scopes grant `flows:write`: an
admin made it for this. A workspace the caller is not a member of is 404.
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
from flows.git.sync import BadFile, MissingCredentials, apply_sync, plan_sync


class SyncBody(serializers.Serializer):
    files = serializers.DictField(
        child=serializers.JSONField(),
        help_text="The directory's files by name: `<key>.json` and `weir.json`.",
    )
    prune = serializers.BooleanField(default=False)
    dry_run = serializers.BooleanField(default=False)


def right_to_sync(request) -> str:
    """A person needs to be an admin; a workspace token needs flows.edit."""
    if getattr(request.auth, "is_workspace_token", False):
        return rights.FLOWS_EDIT
    return rights.MEMBERS_MANAGE


class WorkspaceSyncView(APIView):
    rights = {"post": rights.FLOWS_EDIT}

    @extend_schema(request=SyncBody, responses=dict)
    def post(self, request, workspace_id):
        mine = Workspace.objects.for_user(request.user)
        workspace = mine.filter(pk=workspace_id).first()
        if workspace is None:
            raise NotFound("No workspace of yours has this id.")
        require(request.user, workspace.pk, right_to_sync(request))
        if not isinstance(request.data, dict):
            raise ValidationFailed("The body must be a JSON object {files, ...}.")
        body = SyncBody(data=request.data)
        body.is_valid(raise_exception=True)
        options = body.validated_data
        try:
            plan = plan_sync(workspace, options["files"], prune=options["prune"])
        except BadFile as error:
            raise ValidationFailed(
                str(error), details={"file": error.name, "problem": error.message}
            ) from None
        except MissingCredentials as error:
            raise Conflict(
                str(error),
                code="missing_credentials",
                details={"credentials": error.missing},
            ) from None
        if not options["dry_run"]:
            apply_sync(plan, Actor.from_request(request))
        return Response({**plan.as_dict(), "applied": not options["dry_run"]})
