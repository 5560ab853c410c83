"""The run API: `/api/runs` across the user's flows, one run with its steps,
the chart's statistics and cancel; the run serializers the flow API shares."""

from __future__ import annotations

import uuid

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.settings import api_settings

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.permissions import WorkspaceRole, allows
from core.http.errors import NotFound, ValidationFailed
from core.http.pagination import PagePagination
from core.redact import redact_shapes
from flows.api.run_again import RunAgainMixin
from flows.api.run_files import AnyAccept, file_response
from flows.api.run_filters import (
    FILTERS,
    apply_run_filters,
    parse_run_filters,
)
from flows.engine.waits import wait_of
from flows.files import FileMissing
from flows.models import FlowRun, RunStep
from flows.run_pages import paginator_for
from flows.run_stats import RANGES


class RunStepSerializer(serializers.ModelSerializer):
    duration = serializers.FloatField(
        source="duration_ms", read_only=True, allow_null=True
    )

    class Meta:
        model = RunStep
        fields = [
            "node_id",
            "node_type",
            "node_name",
            "status",
            "output",
            "error",
            "logs",
            "started_at",
            "finished_at",
            "duration",
            "attempts",
        ]


class WaitSerializer(serializers.Serializer):
    """Where a waiting run waits (documentation of `wait`)."""

    node_id = serializers.CharField()
    mode = serializers.ChoiceField(choices=["duration", "until", "callback"])
    until = serializers.DateTimeField(help_text="When it wakes or times out.")
    resume_url = serializers.URLField(allow_null=True)


class RunSummarySerializer(serializers.ModelSerializer):
    """A run in a list: its state and timing, not its (possibly large) data."""

    duration = serializers.FloatField(
        source="duration_ms", read_only=True, allow_null=True
    )
    flow = serializers.UUIDField(source="flow_id", read_only=True)
    wait = serializers.SerializerMethodField()

    class Meta:
        model = FlowRun
        fields = [
            "id",
            "flow",
            "flow_version",
            "trigger",
            "status",
            "success",
            "background",
            "cancel_requested",
            "error",
            "created_at",
            "started_at",
            "finished_at",
            "duration",
            "wait",
        ]

    @extend_schema_field(WaitSerializer(allow_null=True))
    def get_wait(self, run) -> dict | None:
        """A waiting run's wait and resume link (flows/engine/waits.py). The
        link resumes the run, so only callers whose role (and token) may
        start runs in the run's workspace see it: a viewer reads no link."""
        wait = wait_of(run)
        if wait and wait["resume_url"] and not self.may_resume(run):
            wait["resume_url"] = None
        return wait

    def may_resume(self, run) -> bool:
        """Whether the caller may start runs in `run`'s workspace: one query
        per workspace for a whole list (its serializers share the context),
        not one per waiting run."""
        request = self.context.get("request")
        if request is None:
            return True
        workspace_id = run.flow.workspace_id
        answers = self.context.setdefault("may_resume", {})
        if workspace_id not in answers:
            answers[workspace_id] = allows(request, workspace_id, rights.RUNS_START)
        return answers[workspace_id]


class RunListItemSerializer(RunSummarySerializer):
    """A run in the list across flows: also its flow's name."""

    flow_name = serializers.CharField(source="flow.name", read_only=True)

    class Meta(RunSummarySerializer.Meta):
        fields = [*RunSummarySerializer.Meta.fields, "flow_name"]


class RunSerializer(RunSummarySerializer):
    """One run with its input, results, response and every step."""

    steps = RunStepSerializer(many=True, read_only=True)
    error_of = serializers.UUIDField(
        source="error_of_id", read_only=True, allow_null=True
    )
    error_runs = serializers.SerializerMethodField()
    called_by = serializers.UUIDField(
        source="called_by_id", read_only=True, allow_null=True
    )
    called_runs = serializers.SerializerMethodField()
    retry_of = serializers.UUIDField(
        source="retry_of_id", read_only=True, allow_null=True
    )
    retries = serializers.SerializerMethodField()

    class Meta(RunSummarySerializer.Meta):
        fields = [
            *RunSummarySerializer.Meta.fields,
            "input",
            "results",
            "response",
            "steps",
            "error_of",
            "error_runs",
            "called_by",
            "called_runs",
            "retry_of",
            "retries",
        ]

    def to_representation(self, run) -> dict:
        data = super().to_representation(run)
        # Stored as it came (the run reads it); shown without token texts.
        data["input"] = redact_shapes(data["input"])
        return data

    def get_error_runs(self, run) -> list[str]:
        """Ids of the error-flow runs this run's failure started (oldest first)."""
        return [
            str(pk)
            for pk in run.error_runs.order_by("created_at").values_list("pk", flat=True)
        ]

    def get_retries(self, run) -> list[str]:
        """Ids of the runs that retried this one from its failed node (oldest first)."""
        return [
            str(pk)
            for pk in run.retries.order_by("created_at").values_list("pk", flat=True)
        ]

    def get_called_runs(self, run) -> list[dict]:
        """The runs this run's call_flow and for_each nodes started, oldest
        first: {id, flow_id, status, node_id} (one query)."""
        children = run.called_runs.order_by("created_at")
        return [
            {
                "id": str(child["pk"]),
                "flow_id": str(child["flow_id"]),
                "status": child["status"],
                "node_id": (child["request_meta"] or {}).get("called_by_node"),
            }
            for child in children.values("pk", "flow_id", "status", "request_meta")
        ]


# What a member without `runs.data` (a viewer) reads instead of a run's data:
# they see that it ran, how long and how it ended, never what it carried.
HIDDEN_RUN_DATA = {"input": None, "results": None, "response": None, "steps": []}


class RunPagination(PagePagination):
    """Pages of runs, counted at most to a cap (a search's 200, any other
    list's 10,000): past it the answer's `count` is the cap with
    `count_capped: true`; a short first page is its own count
    (flows/run_pages.py)."""

    def paginate_queryset(self, queryset, request, view=None):
        self.django_paginator_class = paginator_for(request.query_params)
        return super().paginate_queryset(queryset, request, view)

    def get_paginated_response(self, data):
        response = super().get_paginated_response(data)
        paginator = self.page.paginator
        if paginator.count_capped:
            response.data["count"] = paginator.cap
            response.data["count_capped"] = True
        return response


RUN_FILTER_PARAMETERS = [
    OpenApiParameter(name, str, description=description)
    for name, description in FILTERS.items()
]


@extend_schema_view(
    list=extend_schema(
        parameters=RUN_FILTER_PARAMETERS, responses=RunListItemSerializer(many=True)
    )
)
class RunViewSet(
    RunAgainMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    viewsets.GenericViewSet,
):
    """The runs of the flows of the user's workspaces, and one run with its
    steps (its data only for a role with `runs.data`: a viewer sees that a run
    failed, not what it carried). Any other run does not exist here (404).
    """

    pagination_class = RunPagination
    permission_classes = [*api_settings.DEFAULT_PERMISSION_CLASSES, WorkspaceRole]
    # One run is FLOWS_VIEW; its input, results and steps only for a role (and
    # a token) holding RUNS_DATA: a viewer sees that a run failed, not what it
    # carried.
    rights = {
        "list": rights.FLOWS_VIEW,
        "stats": rights.FLOWS_VIEW,
        "retrieve": rights.FLOWS_VIEW,
        "cancel": rights.RUNS_START,
        # A file's bytes are run data: never a viewer's.
        "file": rights.RUNS_DATA,
        "rerun": rights.RUNS_START,
        "retry": rights.RUNS_START,
        "retry_failed": rights.RUNS_START,
    }

    def get_queryset(self):
        runs = FlowRun.objects.for_user(self.request.user)
        if self.action == "retrieve":
            return runs.prefetch_related("steps")
        if self.action == "file":
            return runs
        filters = parse_run_filters(self.request.query_params)
        if self.action == "list":
            runs = runs.listed()
        else:
            runs = runs.select_related("flow").order_by("-created_at", "-id")
        return apply_run_filters(runs, filters)

    def get_serializer_class(self):
        return RunSerializer if self.action == "retrieve" else RunListItemSerializer

    def retrieve(self, request, *args, **kwargs):
        run = self.get_object()
        data = RunSerializer(run, context={"request": request}).data
        if not allows(request, run.flow.workspace_id, rights.RUNS_DATA):
            data.update(HIDDEN_RUN_DATA)
        return Response(data)

    @extend_schema(
        parameters=[OpenApiParameter("range", str, enum=list(RANGES))],
        responses=dict,
    )
    @action(detail=False, methods=["get"])
    def stats(self, request):
        """Runs per hour (per day for 30d) by status, with p50/p95 durations."""
        range_key = request.query_params.get("range", "24h")
        if range_key not in RANGES:
            message = f"Choose a range of {', '.join(RANGES)}."
            raise ValidationFailed(message, details={"range": [message]})
        runs = FlowRun.objects.for_user(request.user)
        return Response(runs.stats(range_key))

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel the run: a queued run ends `cancelled` now, a running one
        before its next node. 200 with the run; a finished run is unchanged."""
        run = self.get_object()
        run.request_cancel()
        record(
            "run.cancelled",
            Actor.from_request(request),
            run,
            target_label=run.flow.name,
            changes={"status_before": run.status},
        )
        return Response(self.get_serializer(self.get_object()).data)

    @extend_schema(responses={(200, "application/octet-stream"): OpenApiTypes.BINARY})
    @action(
        detail=True,
        methods=["get"],
        url_path="files/(?P<file_id>[^/]+)",
        content_negotiation_class=AnyAccept,
    )
    def file(self, request, pk=None, file_id=None):
        """A file of the run's data (its `$file` marker's id), as a download.
        Only a role (and token) holding runs.data: a viewer gets 403."""
        run = self.get_object()
        try:
            found = run.files.filter(pk=uuid.UUID(file_id)).first()
        except ValueError:
            found = None
        if found is None:
            raise NotFound("The run has no such file.")
        try:
            return file_response(found)
        except FileMissing as missing:  # the row outlived its bytes
            raise NotFound(missing.message) from None
