"""A flow's history: `/api/flows/:id/versions[/:n[/diff|/restore]]`.

List (newest first, paged), one version's snapshot, the diff between two
versions (flows/history/diff.py) and restore, which writes the old content as
a new version through the flow API's own validation and `If-Match` check.

A version and a diff show literal secrets typed into nodes replaced, as an
export does (`flows.credentials.literals`): a secret moved into a credential
stays out of sight in the history. A restore brings back the version as stored.
"""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.workspaces.access import whose_work
from core.http.conditional import etag
from core.http.errors import NotFound, PreconditionFailed, ValidationFailed
from core.http.pagination import PagePagination
from flows.credentials.literals import LiteralSecrets
from flows.engine.admission import admitted
from flows.history.diff import diff
from flows.history.models import FlowVersion
from flows.history.restore import restored_fields
from flows.history.save import StaleVersion

IF_MATCH = OpenApiParameter(
    "If-Match",
    str,
    OpenApiParameter.HEADER,
    description='The version you edited, e.g. "3"; 412 when it is stale.',
)


class VersionSummarySerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(source="created_by_label", read_only=True)

    class Meta:
        model = FlowVersion
        fields = [
            "number",
            "source",
            "restored_from",
            "promoted_from",
            "created_by",
            "created_at",
        ]


class VersionSerializer(VersionSummarySerializer):
    # Where literal secrets were replaced: [{node_id, field}] (set by the view).
    redacted = serializers.ListField(
        child=serializers.DictField(), read_only=True, default=list
    )

    class Meta:
        model = FlowVersion
        fields = [
            *VersionSummarySerializer.Meta.fields,
            "name",
            "description",
            "input_schema",
            "nodes",
            "edges",
            "settings",
            "redacted",
        ]


def diff_url(flow_id, number: int) -> str:
    return f"/api/flows/{flow_id}/versions/{number}/diff"


def stale(error: StaleVersion) -> PreconditionFailed:
    """The 412 of a stale save or restore: who saved the newer version, when,
    and where its diff is, so the builder can say more than "reload"."""
    newest = error.newest
    details = {"current_version": error.current}
    message = (
        "This flow was saved by someone else since you loaded it "
        f"(it is now at version {error.current})."
    )
    if newest is not None:
        details |= {
            "saved_by": newest.created_by_label,
            "saved_at": newest.created_at.isoformat(),
            "diff_url": diff_url(newest.flow_id, newest.number),
        }
        message = (
            f"{newest.created_by_label} saved version {newest.number} of this flow "
            f"at {newest.created_at:%Y-%m-%d %H:%M} UTC, after you loaded it."
        )
    return PreconditionFailed(message, details=details)


class VersionsMixin:
    """FlowViewSet actions for the flow's history."""

    def get_version(self, flow, number) -> FlowVersion:
        version = FlowVersion.objects.filter(flow=flow, number=int(number)).first()
        if version is None:
            raise NotFound(f"This flow has no version {number}.")
        return version

    @extend_schema(responses=VersionSummarySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=PagePagination)
    def versions(self, request, pk=None):
        """The flow's versions, newest first, 20 to a page (`?page=2`)."""
        flow = self.get_object()
        versions = (
            FlowVersion.objects.filter(flow=flow)
            .order_by("-number")
            .defer("nodes", "edges", "input_schema", "description", "settings")
        )
        page = self.paginate_queryset(versions)
        return self.get_paginated_response(
            VersionSummarySerializer(page, many=True).data
        )

    @extend_schema(responses=VersionSerializer)
    @action(detail=True, methods=["get"], url_path=r"versions/(?P<number>[0-9]+)")
    def version(self, request, pk=None, number=None):
        """One version: what the flow was at that number, literal secrets
        replaced (listed in `redacted`)."""
        flow = self.get_object()
        version = self.get_version(flow, number)
        literals = LiteralSecrets.of_workspace(flow.workspace_id)
        data, redacted = literals.flow(VersionSerializer(version).data)
        return Response({**data, "redacted": redacted})

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "against",
                int,
                description="The version to compare with; the one before by default.",
            )
        ],
        responses=dict,
    )
    @action(detail=True, methods=["get"], url_path=r"versions/(?P<number>[0-9]+)/diff")
    def version_diff(self, request, pk=None, number=None):
        """What changed from `against` (the previous version) to version `number`,
        keyed by node id."""
        flow = self.get_object()
        new = self.get_version(flow, number)
        against = request.query_params.get("against")
        if against is None:
            old = (
                FlowVersion.objects.filter(flow=flow, number__lt=new.number)
                .order_by("-number")
                .first()
            )
        elif against.isdigit():
            old = self.get_version(flow, against)
        else:
            raise ValidationFailed(
                "against must be a version number.",
                details={"against": ["Must be a version number."]},
            )
        literals = LiteralSecrets.of_workspace(flow.workspace_id)
        before = literals.flow(old.snapshot())[0] if old else {}
        after = literals.flow(new.snapshot())[0]
        return Response(
            {
                "from": old.number if old else None,
                "to": new.number,
                **diff(before, after),
            }
        )

    @extend_schema(request=None, parameters=[IF_MATCH])
    @action(
        detail=True,
        methods=["post"],
        url_path=r"versions/(?P<number>[0-9]+)/restore",
    )
    def restore(self, request, pk=None, number=None):
        """Make version `number` the flow's content again, as a new version,
        validated against the flow as it is now (a trigger that is off stays
        off; missing credentials are a 400)."""
        # It compiles the restored code nodes, as a save with nodes does.
        with admitted(request, **whose_work(request.user)), transaction.atomic():
            flow = self.locked_for_edit()
            version = self.get_version(flow, number)
            serializer = self.get_serializer(
                flow, data=restored_fields(flow, version), partial=True
            )
            serializer.context["restored_from"] = version.number
            serializer.is_valid(raise_exception=True)
            serializer.save()
        response = Response(serializer.data)
        response["ETag"] = etag(serializer.data["version"])
        return response
