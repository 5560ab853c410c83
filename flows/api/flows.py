"""The flow API: serializers and the viewset behind `/api/flows` (docs/api.md)."""

from __future__ import annotations

import contextlib

from django.db import transaction
from django.db.models import Exists, OuterRef
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import (
    flow_work,
    person,
    whose_work,
    workspace_ids_where,
)
from accounts.workspaces.fields import WorkspaceField
from accounts.workspaces.permissions import WorkspaceRole, allows, require
from accounts.workspaces.personal import default_workspace
from accounts.workspaces.roles import FLOWS_EDIT, RUNS_DATA
from core.http.body import object_body
from core.http.conditional import etag, parse_if_match
from core.http.errors import ValidationFailed
from core.http.respond_async import accepted, prefers_async
from core.storable import Unstorable, check_storable, check_storable_body
from flows.api.form_slug import check_form_slug
from flows.api.move import MoveMixin
from flows.api.pins import RunNodeMixin, wants_pins
from flows.api.run_filters import apply_run_filters, parse_run_filters
from flows.api.run_result import RunResultSerializer
from flows.api.runs import RUN_FILTER_PARAMETERS, RunPagination, RunSummarySerializer
from flows.api.transfer import TransferMixin, uuid_or_none
from flows.api.versions import IF_MATCH, VersionsMixin, stale
from flows.api.warnings import flow_warnings
from flows.credentials.usage import check_owned
from flows.engine import fair_queue, run_flow
from flows.engine.admission import admitted
from flows.engine.background import enqueue_run
from flows.graph import validate_graph
from flows.graph.pins import pin_problems
from flows.history.models import FlowVersion
from flows.history.save import StaleVersion, save_flow
from flows.models import Flow, FlowRun
from flows.querysets import UNLISTED_RUN_FIELDS
from flows.refs import check_called_flows
from flows.schedules.quota import check_schedule_quota

TRUE = ("1", "true", "yes")


def storable(value) -> None:
    """Field validator: refuse what the database cannot store (core.storable)."""
    try:
        check_storable(value, what="The value")
    except Unstorable as problem:
        raise serializers.ValidationError(str(problem)) from None


class FlowSerializer(serializers.ModelSerializer):
    nodes = serializers.JSONField(required=False, validators=[storable])
    edges = serializers.JSONField(required=False, validators=[storable])
    webhook_url = serializers.CharField(read_only=True)
    webhook_signed = serializers.SerializerMethodField()
    warnings = serializers.SerializerMethodField()
    # Set on create only (moving is its own action); a workspace the user is
    # not a member of reads exactly like a missing one.
    workspace = WorkspaceField(right=FLOWS_EDIT)
    # Another workspace's flow reads exactly like a missing one.
    error_flow = serializers.PrimaryKeyRelatedField(
        queryset=Flow.objects.all(),
        allow_null=True,
        required=False,
        error_messages={"does_not_exist": "No flow of this workspace has this id."},
    )

    class Meta:
        model = Flow
        fields = [
            "id",
            "workspace",
            "name",
            "description",
            "nodes",
            "edges",
            "input_schema",
            "webhook_url",
            "webhook_enabled",
            "webhook_signed",
            "webhook_signature_scheme",
            "warnings",
            "webhook_response_mode",
            "error_flow",
            "mcp_offered",
            "pins",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = [
            "id",
            "webhook_signature_scheme",  # set with the secret (webhooks/api.py)
            "version",
            "created_at",
            "updated_at",
        ]
        extra_kwargs = {
            field: {"validators": [storable]}
            for field in ("name", "description", "input_schema")
        }

    def to_representation(self, flow):
        """Without `runs.data` (a viewer, or a token without `runs:read`) the
        answer has no `pins`: they are copies of run outputs."""
        data = super().to_representation(flow)
        request = self.context.get("request")
        if request is not None and not self._shows_run_data(request, flow):
            data.pop("pins", None)
        return data

    def _shows_run_data(self, request, flow) -> bool:
        """No query for a flow the view annotated (`reads_run_data`, the
        role's answer), else one (`allows`)."""
        role_reads = getattr(flow, "reads_run_data", None)
        if role_reads is None:
            return allows(request, flow.workspace_id, RUNS_DATA)
        return role_reads and rights.token_allows(request, RUNS_DATA)

    def get_webhook_signed(self, flow) -> bool:
        """Whether webhooks must be signed; the secret itself is never shown here."""
        return bool(flow.webhook_secret)

    def get_warnings(self, flow) -> list[str]:
        return flow_warnings(flow, self.context.get("request"))

    def target_workspace_id(self, attrs=None):
        """The workspace this save is in: the flow's, the one posted, or the
        default one (looked up once, then kept in `attrs`; 403 when the role,
        or the token, may not edit flows there)."""
        if self.instance is not None:
            return self.instance.workspace_id
        attrs = attrs if attrs is not None else {}
        if attrs.get("workspace") is None:
            user = self.context["request"].user
            attrs["workspace"] = default_workspace(user)
            require(user, attrs["workspace"].pk, FLOWS_EDIT)
        return attrs["workspace"].pk

    def validate_error_flow(self, value):
        """Not this flow (`validate` checks it is of the same workspace)."""
        if value is None:
            return value
        if self.instance is not None and value.pk == self.instance.pk:
            raise serializers.ValidationError(
                "A flow cannot be its own error flow: its failure would start it."
            )
        return value

    def create(self, validated_data):
        flow = Flow()
        save_flow(flow, validated_data, **self._saved_by())
        return flow

    def update(self, instance, validated_data):
        save_flow(instance, validated_data, **self._saved_by())
        return instance

    def _saved_by(self) -> dict:
        """Every save through this serializer goes through `save_flow`, as the
        request's user, with the source the view set (create, edit, import)."""
        return {
            "actor": Actor.from_request(self.context["request"]),
            "source": self.context.get("source", "edit"),
            "restored_from": self.context.get("restored_from"),
        }

    def validate_input_schema(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be a JSON Schema object.")
        return value

    def validate(self, attrs):
        error_flow = attrs.get("error_flow")
        if error_flow and error_flow.workspace_id != self.target_workspace_id(attrs):
            raise serializers.ValidationError(
                {"error_flow": ["No flow of this workspace has this id."]}
            )
        if self.instance is None or "nodes" in attrs or "edges" in attrs:
            nodes = attrs.get("nodes", self.instance.nodes if self.instance else [])
            edges = attrs.get("edges", self.instance.edges if self.instance else [])
            errors = validate_graph(nodes, edges)
            if not errors:
                workspace_id = self.target_workspace_id(attrs)
                check_owned(nodes, workspace_id, errors)
                check_called_flows(nodes, workspace_id, errors)
                check_schedule_quota(nodes, workspace_id, self.instance, errors)
                check_form_slug(nodes, self.instance, errors)
            if errors:
                raise ValidationFailed(errors.summary(), details=errors.as_details())
        nodes = attrs.get("nodes", self.instance.nodes if self.instance else [])
        if "pins" in attrs:
            problems = pin_problems(attrs["pins"], nodes)
            if problems:
                raise ValidationFailed(problems[0], details={"pins": problems})
        elif self.instance is not None and "nodes" in attrs and self.instance.pins:
            kept = {
                n.get("id") for n in nodes if isinstance(n, dict)
            }  # deleted: unpinned
            attrs["pins"] = {k: v for k, v in self.instance.pins.items() if k in kept}
        return attrs


@extend_schema_view(
    destroy=extend_schema(
        responses={
            200: inline_serializer(
                "FlowDeleted", {"success": serializers.BooleanField()}
            )
        }
    ),
    partial_update=extend_schema(parameters=[IF_MATCH]),
)
class FlowViewSet(
    RunNodeMixin, VersionsMixin, TransferMixin, MoveMixin, viewsets.ModelViewSet
):
    """The flows of the user's workspaces (`?workspace=` narrows to one);
    any other flow answers 404, and an action the member's role lacks 403."""

    serializer_class = FlowSerializer
    # For the schema only (a UUID path parameter); requests use get_queryset.
    queryset = Flow.objects.none()
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    rights = {
        "list": rights.FLOWS_VIEW,
        "retrieve": rights.FLOWS_VIEW,
        "export": rights.FLOWS_VIEW,
        "runs": rights.FLOWS_VIEW,
        "versions": rights.FLOWS_VIEW,
        "version": rights.FLOWS_VIEW,
        "version_diff": rights.FLOWS_VIEW,
        "create": rights.FLOWS_EDIT,
        "partial_update": rights.FLOWS_EDIT,
        "destroy": rights.FLOWS_EDIT,
        "import_flow": rights.FLOWS_EDIT,
        "restore": rights.FLOWS_EDIT,
        "run": rights.RUNS_START,
        "run_node": rights.RUNS_START,
        # Moving a flow out is an admin's; the target is checked in the action.
        "move": rights.MEMBERS_MANAGE,
    }

    # Each action's `FlowVersion.source`.
    SOURCES = {"create": "create", "import_flow": "import", "restore": "restore"}

    def get_queryset(self):
        # Whether the user's role reads run data (pins), in the same query.
        reads_run_data = workspace_ids_where(self.request.user, RUNS_DATA).filter(
            workspace_id=OuterRef("workspace_id")
        )
        flows = Flow.objects.for_user(self.request.user).annotate(
            reads_run_data=Exists(reads_run_data)
        )
        workspace = self.request.query_params.get("workspace")
        if self.action == "list" and workspace:
            flows = flows.filter(workspace_id=uuid_or_none(workspace))
        return flows

    def get_serializer_context(self):
        source = self.SOURCES.get(self.action, "edit")
        return {**super().get_serializer_context(), "source": source}

    def perform_create(self, serializer):
        serializer.save(created_by=person(self.request.user))

    def create(self, request, *args, **kwargs):
        with self.admitted_save(request), transaction.atomic():
            return super().create(request, *args, **kwargs)

    def admitted_save(self, request):
        """A save with nodes compiles each code node in the sandbox (up to
        SAVE_CHECK_SECONDS): it holds a web thread and a sandbox worker as a
        run does, so it counts against the same admission caps (503/429). A
        save without nodes (a rename) compiles nothing and is not counted."""
        body = request.data if isinstance(request.data, dict) else {}
        if not body.get("nodes"):
            return contextlib.nullcontext()
        return admitted(request, **whose_work(request.user))

    def retrieve(self, request, *args, **kwargs):
        response = super().retrieve(request, *args, **kwargs)
        response["ETag"] = etag(response.data["version"])
        return response

    def locked_for_edit(self) -> Flow:
        """The flow, its row locked until the transaction ends; 412 naming who
        saved the newer version when `If-Match` is stale."""
        flow = (
            self.get_queryset()
            .select_for_update(no_key=True)  # new runs' inserts do not wait
            .filter(pk=self.get_object().pk)
            .get()
        )
        expected = parse_if_match(self.request.headers.get("If-Match", ""))
        if expected is not None and expected != flow.version:
            newest = FlowVersion.objects.filter(flow=flow, number=flow.version)
            raise stale(StaleVersion(flow.version, newest.first()))
        return flow

    def partial_update(self, request, *args, **kwargs):
        with self.admitted_save(request), transaction.atomic():
            flow = self.locked_for_edit()
            serializer = self.get_serializer(flow, data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            serializer.save()
        response = Response(serializer.data)
        response["ETag"] = etag(serializer.data["version"])
        return response

    @extend_schema(request=dict, responses={201: FlowSerializer})
    @action(detail=False, methods=["post"], url_path="import")
    def import_flow(self, request):
        """Create a flow from an export; the graph is validated as on create."""
        with self.admitted_save(request), transaction.atomic():
            return self._import(request)

    def destroy(self, request, *args, **kwargs):
        flow = self.get_object()
        with transaction.atomic():
            changes = {"version": flow.version}
            record("flow.deleted", Actor.from_request(request), flow, changes=changes)
            flow.delete()
        return Response({"success": True})

    @extend_schema(request=dict, responses=RunResultSerializer)
    @action(detail=True, methods=["post"])
    def run(self, request, pk=None):
        """Run the flow now with the body (a JSON object, or nothing) as `input`.

        Answers 200 even when the run failed: `success` and `error` say so.
        Counts against the admission caps like a webhook (503/429 above them).
        With `Prefer: respond-async` or `?async=true`, the run is queued for a
        worker instead: 202 `{run_id, status: "queued"}`; poll /api/runs/:id.
        """
        flow = self.get_object()
        body = object_body(request, check=check_storable_body) or {}
        use_pins = wants_pins(request, flow)  # the builder's test runs
        by, manual = Actor.from_request(request), FlowRun.Trigger.MANUAL
        if prefers_async(request) or request.query_params.get("async") in TRUE:
            meta = {"use_pins": True} if use_pins else None
            fair_queue.check_room(flow)
            run = enqueue_run(flow, body, manual, request_meta=meta, started_by=by)
            return accepted(run.id, run.status, location=f"/api/runs/{run.id}")
        with admitted(request, **flow_work(flow)):
            pins = flow.pins if use_pins else None
            run = run_flow(flow, body, manual, pins=pins, started_by=by)
        return Response(run.as_result())

    @extend_schema(
        parameters=RUN_FILTER_PARAMETERS, responses=RunSummarySerializer(many=True)
    )
    @action(detail=True, methods=["get"], pagination_class=RunPagination)
    def runs(self, request, pk=None):
        """The flow's runs, newest first, 20 to a page (`?page=2`), filterable."""
        flow = self.get_object()
        filters = parse_run_filters(request.query_params)
        # Through the flow's manager, so each run's `flow` is `flow` (no query);
        # without the runs' data, which the list does not show.
        runs = flow.runs.defer(*UNLISTED_RUN_FIELDS).order_by("-created_at", "-id")
        page = self.paginate_queryset(apply_run_filters(runs, filters))
        runs = RunSummarySerializer(page, many=True, context={"request": request})
        return self.get_paginated_response(runs.data)
