"""`POST /api/flows/:id/nodes/:node_id/run`: "Run this node" (flows/graph/pins.py).

Runs one node the way the builder's test runs do: its upstream nodes take
their pinned outputs, or else their outputs from the flow's last run, and
only run where they have neither; nothing after the node runs. The input is
the body, or the last run's input when the body is empty.

The last run's input and outputs, and the pins (copies of run outputs), are
run data: they are used only for a caller holding `runs.data` (role and
token). Anyone else's node runs on the body alone, its upstream nodes run
again, so a `flows:run` token without `runs:read` cannot read them back.
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.workspaces.access import flow_work
from accounts.workspaces.permissions import allows
from core.http.body import object_body
from core.http.errors import NotFound
from core.storable import check_storable_body
from flows.api.run_result import RunResultSerializer
from flows.engine import run_flow
from flows.engine.admission import admitted
from flows.graph.pins import upstream_of
from flows.models import FlowRun


def wants_pins(request, flow) -> bool:
    """Whether a whole-flow run (`POST /api/flows/:id/run?pins=true`, the
    builder's test runs) uses the flow's pins: only for a caller holding
    `runs.data`, as above, or a `flows:run` token would read them back."""
    asked = request.query_params.get("pins") in ("1", "true", "yes")
    return asked and allows(request, flow.workspace_id, rights.RUNS_DATA)


class RunNodeMixin:
    """A FlowViewSet action: run one node on pinned or last-run outputs."""

    @extend_schema(request=None, responses=RunResultSerializer)
    @action(detail=True, methods=["post"], url_path=r"nodes/(?P<node_id>[^/]+)/run")
    def run_node(self, request, pk=None, node_id=None):
        """Run the node `node_id` alone on its upstream nodes' data."""
        flow = self.get_object()
        if not any(isinstance(n, dict) and n.get("id") == node_id for n in flow.nodes):
            raise NotFound(f"The flow has no node {node_id[:100]!r}.")
        shows_data = allows(request, flow.workspace_id, rights.RUNS_DATA)
        last = (
            FlowRun.objects.filter(flow=flow)
            .exclude(results={})
            .order_by("-created_at")
            .only("input", "results")
            .first()
            if shows_data
            else None
        )
        body = object_body(request, check=check_storable_body)
        upstream = upstream_of(node_id, flow.edges)
        known = {**(last.results if last else {}), **(flow.pins if shows_data else {})}
        pins = {
            upstream_id: known[upstream_id] for upstream_id in upstream & known.keys()
        }
        input = body if body is not None else (last.input if last else {})
        with admitted(request, **flow_work(flow)):
            run = run_flow(
                flow,
                input,
                FlowRun.Trigger.MANUAL,
                pins=pins,
                only=upstream | {node_id},
                started_by=Actor.from_request(request),
            )
        return Response(run.as_result())
