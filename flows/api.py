"""The flow API: serializers and the viewset behind `/api/flows` (DESIGN.md 4)."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from config.http.errors import PreconditionFailed, ValidationFailed
from config.http.pagination import PagePagination
from flows.engine import run_flow
from flows.engine.background import enqueue_run
from flows.graph import validate_graph
from flows.models import Flow, FlowRun, RunStep
from flows.storable import Unstorable, check_storable

TRUE = ("1", "true", "yes")


def prefers_async(request) -> bool:
    """`Prefer: respond-async` (RFC 7240) on the request."""
    prefer = request.headers.get("Prefer", "")
    return any(
        part.split("=")[0].strip().lower() == "respond-async"
        for part in prefer.replace(";", ",").split(",")
    )


def accepted(run: FlowRun) -> Response:
    """202 for a queued background run: where to poll it."""
    return Response(
        {"run_id": str(run.id), "status": run.status},
        status=202,
        headers={
            "Location": f"/api/runs/{run.id}",
            "Preference-Applied": "respond-async",
        },
    )


def storable(value) -> None:
    """Field validator: refuse what the database cannot store (flows.storable)."""
    try:
        check_storable(value, what="The value")
    except Unstorable as problem:
        raise serializers.ValidationError(str(problem)) from None


class FlowSerializer(serializers.ModelSerializer):
    nodes = serializers.JSONField(required=False, validators=[storable])
    edges = serializers.JSONField(required=False, validators=[storable])
    webhook_url = serializers.CharField(read_only=True)
    webhook_signed = serializers.SerializerMethodField()

    class Meta:
        model = Flow
        fields = [
            "id",
            "name",
            "description",
            "nodes",
            "edges",
            "input_schema",
            "webhook_url",
            "webhook_enabled",
            "webhook_signed",
            "webhook_response_mode",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "version", "created_at", "updated_at"]
        extra_kwargs = {
            field: {"validators": [storable]}
            for field in ("name", "description", "input_schema")
        }

    def get_webhook_signed(self, flow) -> bool:
        """Whether webhooks must be signed; the secret itself is never shown here."""
        return bool(flow.webhook_secret)

    def validate_input_schema(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Must be a JSON Schema object.")
        return value

    def validate(self, attrs):
        if self.instance is None or "nodes" in attrs or "edges" in attrs:
            nodes = attrs.get("nodes", self.instance.nodes if self.instance else [])
            edges = attrs.get("edges", self.instance.edges if self.instance else [])
            errors = validate_graph(nodes, edges)
            if errors:
                raise ValidationFailed(errors.summary(), details=errors.as_details())
        return attrs


class RunStepSerializer(serializers.ModelSerializer):
    duration = serializers.FloatField(source="duration_ms", read_only=True)

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
        ]


class RunSummarySerializer(serializers.ModelSerializer):
    """A run in a list: its state and timing, not its (possibly large) data."""

    duration = serializers.FloatField(source="duration_ms", read_only=True)
    flow = serializers.UUIDField(source="flow_id", read_only=True)

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
        ]


class RunSerializer(RunSummarySerializer):
    """One run with its input, results, response and every step."""

    steps = RunStepSerializer(many=True, read_only=True)

    class Meta(RunSummarySerializer.Meta):
        fields = [
            *RunSummarySerializer.Meta.fields,
            "input",
            "results",
            "response",
            "steps",
        ]


class RunResultSerializer(serializers.Serializer):
    """The run result of DESIGN.md section 4 (documentation only)."""

    success = serializers.BooleanField()
    run_id = serializers.UUIDField()
    status = serializers.ChoiceField(choices=FlowRun.Status.choices)
    results = serializers.DictField()
    duration = serializers.FloatField(help_text="Milliseconds.")
    error = serializers.DictField(allow_null=True)


def parse_if_match(header: str) -> int | None:
    """`"3"`, `W/"3"` or `3` → 3; `*` or nothing → None; anything else is stale."""
    value = header.strip()
    if not value or value == "*":
        return None
    value = value.removeprefix("W/").strip('"')
    return int(value) if value.isdigit() else -1


@extend_schema_view(
    partial_update=extend_schema(
        parameters=[
            OpenApiParameter(
                "If-Match",
                str,
                OpenApiParameter.HEADER,
                description='The version you edited, e.g. "3"; 412 when it is stale.',
            )
        ]
    ),
)
class FlowViewSet(viewsets.ModelViewSet):
    """The signed-in user's flows. Anyone else's flow answers 404."""

    serializer_class = FlowSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return Flow.objects.for_user(self.request.user)

    def perform_create(self, serializer):
        serializer.save(owner=self.request.user)

    def retrieve(self, request, *args, **kwargs):
        response = super().retrieve(request, *args, **kwargs)
        response["ETag"] = f'"{response.data["version"]}"'
        return response

    def partial_update(self, request, *args, **kwargs):
        with transaction.atomic():
            flow = (
                self.get_queryset()
                .select_for_update()
                .filter(pk=self.get_object().pk)
                .get()
            )
            expected = parse_if_match(request.headers.get("If-Match", ""))
            if expected is not None and expected != flow.version:
                raise PreconditionFailed(
                    "This flow was saved by someone else since you loaded it "
                    f"(it is now at version {flow.version}).",
                    details={"current_version": flow.version},
                )
            serializer = self.get_serializer(flow, data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            serializer.save(version=flow.version + 1)
        response = Response(serializer.data)
        response["ETag"] = f'"{serializer.data["version"]}"'
        return response

    def destroy(self, request, *args, **kwargs):
        self.get_object().delete()
        return Response({"success": True})

    @extend_schema(request=dict, responses=RunResultSerializer)
    @action(detail=True, methods=["post"])
    def run(self, request, pk=None):
        """Run the flow now with the body (a JSON object, or nothing) as `input`.

        Answers 200 even when the run failed: `success` and `error` say so.
        With `Prefer: respond-async` or `?async=true`, the run is queued for a
        worker instead: 202 `{run_id, status: "queued"}`; poll /api/runs/:id.
        """
        flow = self.get_object()
        body = request.data if request.body else {}
        if not isinstance(body, dict):
            raise ValidationFailed("The body must be a JSON object (or empty).")
        try:
            check_storable(body, what="The JSON body")
        except Unstorable as problem:
            raise ValidationFailed(str(problem)) from None
        if prefers_async(request) or request.query_params.get("async") in TRUE:
            return accepted(enqueue_run(flow, body, FlowRun.Trigger.MANUAL))
        run = run_flow(flow, body, FlowRun.Trigger.MANUAL)
        return Response(run.as_result())

    @extend_schema(responses=RunSummarySerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=PagePagination)
    def runs(self, request, pk=None):
        """The flow's runs, newest first, 20 to a page (`?page=2`)."""
        flow = self.get_object()
        runs = FlowRun.objects.filter(flow=flow).order_by("-created_at")
        page = self.paginate_queryset(runs)
        return self.get_paginated_response(RunSummarySerializer(page, many=True).data)


class RunViewSet(mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """One run with its steps; runs of someone else's flow answer 404."""

    serializer_class = RunSerializer

    def get_queryset(self):
        return FlowRun.objects.for_user(self.request.user).prefetch_related("steps")

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None):
        """Cancel the run: a queued run ends `cancelled` now, a running one
        before its next node. 200 with the run; a finished run is unchanged."""
        run = self.get_object()
        run.request_cancel()
        return Response(self.get_serializer(self.get_object()).data)
