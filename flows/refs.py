"""Where flows refer to other flows: a call_flow or for_each node's `flow_id`."""

from __future__ import annotations

import uuid

from django.apps import apps

CALLING_KINDS = ("call_flow", "for_each")


def check_called_flows(nodes: list, workspace_id, errors) -> None:
    """Refuse, at save, a call_flow or for_each node whose `flow_id` is not one
    of the workspace's flows: a node error (GraphErrors.node) for each. Another
    workspace's flow reads exactly like a missing one. The engine checks again at
    run time (flows/engine/calls.py). One query when any node calls a flow."""
    wanted: dict[int, uuid.UUID | None] = {}
    for index, node in enumerate(nodes):
        data = node.get("data") if isinstance(node, dict) else None
        if node.get("type") in CALLING_KINDS and isinstance(data, dict):
            try:
                wanted[index] = uuid.UUID(str(data.get("flow_id")))
            except ValueError:
                wanted[index] = None
    if not wanted:
        return
    ids = [value for value in wanted.values() if value]
    flows = apps.get_model("flows", "Flow")  # models.Flow.clean calls this module
    owned = set(
        flows.objects.filter(workspace_id=workspace_id, pk__in=ids).values_list(
            "pk", flat=True
        )
    )
    for index, flow_id in wanted.items():
        if flow_id not in owned:
            message = "The called flow does not exist or is in another workspace."
            if not nodes[index]["data"].get("flow_id"):
                message = "Choose the flow to call."
            errors.node(index, "data.flow_id", message)
