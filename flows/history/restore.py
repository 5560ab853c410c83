"""What a restore writes: an old version's content, checked against today.

A restore is a new save (append-only history), validated like any other by
the flow API. Before that, the old content is fitted to the flow as it is now:
a trigger that is off now stays off (an old version must not silently re-arm
a schedule, a webhook or the MCP offer someone turned off since), and an error
flow that no longer exists, or is no longer in the flow's workspace, is dropped
rather than refused.
"""

from __future__ import annotations

import copy

from flows.history.models import FlowVersion
from flows.nodes.schedule import enabled_schedule


def restored_fields(flow, version: FlowVersion) -> dict:
    """The flow API fields that restore `version` onto `flow`. One query when
    the version names an error flow."""
    nodes = copy.deepcopy(version.nodes)
    if enabled_schedule(flow.nodes) is None:
        for node in nodes if isinstance(nodes, list) else []:
            if isinstance(node, dict) and node.get("type") == "schedule":
                node["data"] = {**(node.get("data") or {}), "enabled": False}
    settings = version.settings or {}
    error_flow = settings.get("error_flow_id")
    if error_flow and not (
        type(flow)
        .objects.filter(pk=error_flow, workspace_id=flow.workspace_id)
        .exclude(pk=flow.pk)
        .exists()
    ):
        error_flow = None
    return {
        "name": version.name,
        "description": version.description,
        "input_schema": version.input_schema,
        "nodes": nodes,
        "edges": version.edges,
        "webhook_enabled": flow.webhook_enabled
        and settings.get("webhook_enabled", True),
        "webhook_response_mode": settings.get(
            "webhook_response_mode", flow.webhook_response_mode
        ),
        "error_flow": error_flow,
        "mcp_offered": flow.mcp_offered and settings.get("mcp_offered", True),
    }
