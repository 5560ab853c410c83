"""Server-rendered pages for flows and runs. Data changes go through the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from flows.models import Flow, FlowRun
from flows.nodes import NODE_KINDS
from flows.pretty import pretty_json


def node_kinds_for_palette() -> list[dict]:
    """The registry as the builder's palette sees it: one entry per node kind."""
    return [
        {
            "type": kind.type,
            "label": kind.label,
            "description": kind.description,
            "is_trigger": kind.is_trigger,
            "output_handles": list(kind.output_handles),
        }
        for kind in NODE_KINDS.values()
    ]


@login_required
def flow_list(request: HttpRequest) -> HttpResponse:
    """The user's flows with each one's latest run (two subqueries, one query)."""
    latest = FlowRun.objects.filter(flow=OuterRef("pk")).order_by("-created_at")
    flows = Flow.objects.for_user(request.user).annotate(
        last_run_status=Subquery(latest.values("status")[:1]),
        last_run_at=Subquery(latest.values("created_at")[:1]),
    )
    return render(request, "flows/list.html", {"flows": flows})


@login_required
def builder(request: HttpRequest, flow_id) -> HttpResponse:
    flow = get_object_or_404(Flow.objects.for_user(request.user), pk=flow_id)
    flow_data = {
        "id": str(flow.id),
        "name": flow.name,
        "nodes": flow.nodes,
        "edges": flow.edges,
        "version": flow.version,
        "webhook_url": flow.webhook_url,
        "webhook_enabled": flow.webhook_enabled,
        "webhook_signed": bool(flow.webhook_secret),
    }
    return render(
        request,
        "flows/builder.html",
        {
            "flow": flow,
            "flow_data": flow_data,
            "node_kinds": node_kinds_for_palette(),
            "response_modes": Flow.ResponseMode.choices,
        },
    )


@login_required
def run_detail(request: HttpRequest, run_id) -> HttpResponse:
    """One run's steps as a timeline; runs of other users' flows are 404."""
    run = get_object_or_404(
        FlowRun.objects.for_user(request.user).select_related("flow"), pk=run_id
    )
    steps = list(run.steps.all())
    for step in steps:
        step.output_json = pretty_json(step.output)
    return render(
        request,
        "flows/run_detail.html",
        {
            "run": run,
            "flow": run.flow,
            "steps": steps,
            "input_json": pretty_json(run.input),
        },
    )
