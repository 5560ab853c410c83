"""Running runs again from the API (issue 38): `POST /api/runs/:id/rerun`,
`POST /api/runs/:id/retry` and `POST /api/runs/retry-failed`
(flows/engine/again.py says what each does).

Each starts runs by hand, so each needs `runs.start` (a runner and up), counts
against the same caps as `POST /api/flows/:id/run` (a synchronous run is
admitted, a queued one meets the workspace's queue cap) and is audited. The
new run's results are answered only to a caller holding `runs.data`: they are
made from the stored run's data.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.workspaces.access import flow_work, workspace_ids_where
from accounts.workspaces.permissions import allows
from accounts.workspaces.roles import RUNS_START
from core.http.errors import Conflict
from core.http.respond_async import accepted, prefers_async
from flows.api.run_result import RunResultSerializer
from flows.engine import again, fair_queue
from flows.engine.admission import admitted
from flows.models import FlowRun

TRUE = ("1", "true", "yes")
# How many failed runs one `retry-failed` queues at most; call again for more.
RETRY_FAILED_CAP = 100

ASYNC = OpenApiParameter(
    "async", bool, description="Queue the new run for a worker: 202 (as Prefer)."
)
RETRY_FAILED_RESULT = inline_serializer(
    "RetryFailedResult",
    {
        "queued": serializers.IntegerField(),
        "left": serializers.IntegerField(help_text="Matching runs not queued yet."),
        "run_ids": serializers.ListField(child=serializers.UUIDField()),
    },
)


def wants_async(request) -> bool:
    return prefers_async(request) or request.query_params.get("async") in TRUE


def record_again(request, action: str, new: FlowRun, old: FlowRun) -> None:
    """`run.rerun` or `run.retried` on the new run, naming the one it repeats."""
    record(
        action,
        Actor.from_request(request),
        new,
        target_label=f"{old.flow.name} (v{new.flow_version})",
        changes={"from_run": str(old.pk), "flow_id": str(old.flow_id)},
    )


class RunAgainMixin:
    """The run viewset's actions that start a run again."""

    @extend_schema(request=None, parameters=[ASYNC], responses=RunResultSerializer)
    @action(detail=True, methods=["post"])
    def rerun(self, request, pk=None):
        """A new run with this run's input and trigger facts, on the flow's
        current version: the run result (200), or 202 when queued."""
        return self._again(request, self.get_object(), again.rerun, "run.rerun")

    @extend_schema(request=None, parameters=[ASYNC], responses=RunResultSerializer)
    @action(detail=True, methods=["post"])
    def retry(self, request, pk=None):
        """This failed run again from its failed node, reusing what succeeded:
        the new run's result (200), or 202 when queued; 409 when the run did
        not fail or has not ended."""
        run = self.get_object()
        try:
            again.check_retryable(run)
        except again.CannotRetry as problem:
            raise Conflict(str(problem), code=problem.code) from None
        return self._again(request, run, again.retry, "run.retried")

    def _again(self, request, run: FlowRun, start, audit_action: str):
        if wants_async(request):
            fair_queue.check_room(run.flow)
            new = start(run, background=True)
            record_again(request, audit_action, new, run)
            return accepted(new.id, new.status, location=f"/api/runs/{new.id}")
        with admitted(request, **flow_work(run.flow)):
            new = start(run)
        record_again(request, audit_action, new, run)
        answer = new.as_result()
        # Its input is the stored run's, and a retry's results hold the stored
        # outputs: run data, as the run's own page hides it (flows/api/runs.py).
        if not allows(request, run.flow.workspace_id, rights.RUNS_DATA):
            answer["results"] = None
        return Response(answer)

    @extend_schema(request=None, responses={202: RETRY_FAILED_RESULT})
    @action(detail=False, methods=["post"], url_path="retry-failed")
    def retry_failed(self, request):
        """Queue a retry of each failed run the list's filters match that was
        not retried yet, newest first, at most RETRY_FAILED_CAP; only runs of
        workspaces where the caller may start runs (none: 403)."""
        startable = workspace_ids_where(request.user, RUNS_START)
        if not startable.exists():
            raise PermissionDenied("Your role may not start runs in any workspace.")
        runs = self.filter_queryset(self.get_queryset()).filter(
            status__in=again.RETRYABLE,
            flow__workspace_id__in=startable,
            retries__isnull=True,
        )
        total = runs.count()
        queued = []
        for run in runs[:RETRY_FAILED_CAP]:
            try:
                fair_queue.check_room(run.flow)
            except fair_queue.QueueFull:
                if not queued:
                    raise
                break  # the workspace's queue is full: the rest are left
            new = again.retry(run, background=True)
            record_again(request, "run.retried", new, run)
            queued.append(str(new.id))
        body = {"queued": len(queued), "left": total - len(queued), "run_ids": queued}
        return Response(body, status=202)
