"""A flow's graph as the engine walks it: nodes in order, with their edges.

`plan()` resolves each node's kind, which edges must fire before it runs and
which leave it, and whether a trigger leads to it at all (a node no trigger
reaches is skipped with `UNREACHABLE`, never run).

A plan depends on the graph and the trigger only, and nothing changes it once
made, so a flow that carries a `PLANS` dict (a cached webhook target,
flows/engine/webhook_cache.py, shared by every request's copy) keeps its plans there:
a webhook plans its graph once per process, not on every run (~20 µs a run). Its
webhook node's settings are kept there too (`webhook_entry`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flows.credentials.resolve import mentions_secrets
from flows.engine.variables import mentions_vars
from flows.graph import ERROR_HANDLE, reachable_from_triggers, topological_order
from flows.graph.retry import RetryPolicy, policy_of
from flows.models import Flow, FlowRun
from flows.nodes import NodeKind, get_kind
from flows.nodes.webhook import has_webhook_trigger, methods_of, webhook_settings

# The attribute of a flow instance that holds its plans by trigger, if any.
PLANS = "weir_plans"

# The reason stored on the step of a node no trigger leads to (it never runs).
UNREACHABLE = {
    "code": "unreachable",
    "message": "Skipped: no path from a trigger node leads to this node.",
}


OTHER_TRIGGER = {
    "code": "other_trigger",
    "message": "Skipped: this run started from another trigger.",
}


def starting_triggers(nodes: list[dict], trigger: str | None) -> set[str] | None:
    """Ids of the trigger nodes a run with this trigger starts from.

    A schedule run starts at the schedule node; any other run (webhook, manual,
    agent, error) at the webhook node, or, in a flow with no webhook node, at
    its schedule node (a manual run of a scheduled flow). None: every trigger.
    """
    if trigger is None:
        return None
    by_type: dict[str, set[str]] = {}
    for node in nodes:
        by_type.setdefault(node.get("type"), set()).add(node.get("id"))
    if trigger == FlowRun.Trigger.SCHEDULE and "schedule" in by_type:
        return by_type["schedule"]
    return by_type.get("webhook") or by_type.get("schedule") or None


@dataclass
class PlannedNode:
    node: dict
    kind: NodeKind
    incoming: list[int]  # indexes of edges that must fire
    outgoing: list[tuple[int, str | None]]  # (edge index, source handle)
    reachable: bool = True  # a path of edges leads here from the run's trigger
    skip_error: dict | None = None  # why it is skipped whatever happens
    # Its data mentions `secrets`: templates and code may see them.
    exposes_secrets: bool = False
    reads_vars: bool = False  # its data mentions `vars` (workspace variables)
    # Its retry policy, and whether it leaves through a handle it picks: read
    # from the node once, with the plan, not on every run.
    policy: RetryPolicy = RetryPolicy()
    branching: bool = False


class RunStopped(Exception):
    """Ends the run early with this status and error."""

    def __init__(self, status: str, error: dict):
        super().__init__(error["message"])
        self.status = status
        self.error = error


def plan(flow: Flow, trigger: str | None = None) -> list[PlannedNode]:
    """The nodes in execution order with their edges; RunStopped if not runnable.

    `trigger` (the run's) picks the trigger node the run starts from
    (`starting_triggers`); nodes only another trigger leads to are unreachable.
    The list and its nodes are shared with later runs of a cached flow: read
    them, never change them."""
    plans = flow.__dict__.get(PLANS)
    if plans is None:
        return _plan(flow, trigger)
    planned = plans.get(trigger)
    if planned is None:
        planned = plans[trigger] = _plan(flow, trigger)
    return planned


# Where a flow's plans keep its webhook entry: no trigger is this object.
_WEBHOOK_ENTRY = object()


def webhook_entry(flow: Flow) -> tuple[dict, tuple[str, ...]] | None:
    """The data of `flow`'s webhook node and the methods it takes; None when
    it has no webhook node. Kept with the plans of a flow that carries them:
    the public webhook reads it on every request."""
    plans = flow.__dict__.get(PLANS)
    if plans is not None and _WEBHOOK_ENTRY in plans:
        return plans[_WEBHOOK_ENTRY]
    entry = None
    if has_webhook_trigger(flow.nodes):
        data = webhook_settings(flow.nodes)
        entry = (data, methods_of(data))
    if plans is not None:
        plans[_WEBHOOK_ENTRY] = entry
    return entry


def _plan(flow: Flow, trigger: str | None) -> list[PlannedNode]:
    nodes: dict[str, PlannedNode] = {}
    for node in flow.nodes:
        kind = get_kind(node.get("type"))
        if kind is None:
            raise _invalid(node.get("id"), f"Unknown node type {node.get('type')!r}.")
        data = node.get("data") or {}
        nodes[node["id"]] = PlannedNode(
            node,
            kind,
            [],
            [],
            exposes_secrets=mentions_secrets(data),
            reads_vars=mentions_vars(data),
            policy=policy_of(node),
            branching=kind.handles(data) != (None,),
        )
    starts = starting_triggers(flow.nodes, trigger)
    reachable = reachable_from_triggers(flow.nodes, flow.edges, starts)
    links = []
    for index, edge in enumerate(flow.edges):
        source, target = nodes.get(edge.get("source")), nodes.get(edge.get("target"))
        if source is None or target is None:
            raise _invalid(None, f"Edge {edge.get('id')!r} points at no node.")
        source.outgoing.append((index, edge.get("sourceHandle")))
        # An edge from a node that never runs must not hold its target back.
        if edge["source"] in reachable:
            target.incoming.append(index)
        links.append((edge["source"], edge["target"]))
    for node_id, planned in nodes.items():
        planned.reachable = node_id in reachable
        if planned.kind.is_trigger and not planned.reachable:
            planned.skip_error = OTHER_TRIGGER
        elif not planned.reachable:
            planned.skip_error = UNREACHABLE
    order = topological_order(nodes, links)
    if len(order) != len(nodes):
        raise _invalid(None, "The flow has a cycle.")
    return [nodes[node_id] for node_id in order]


def edges_to_fire(planned: PlannedNode, handle: str | None) -> list[int]:
    """Indexes of the node's outgoing edges that fire when it leaves through
    `handle`: a branching node's chosen handle (several joined by commas: a
    switch in mode all), `ERROR_HANDLE` after a failure its error output
    catches, else `None` (every ordinary edge)."""
    chosen = set(handle.split(",")) if handle else {handle}
    ordinary = handle is None and not planned.branching
    return [
        index
        for index, edge_handle in planned.outgoing
        if edge_handle in chosen or (ordinary and edge_handle != ERROR_HANDLE)
    ]


def is_ready(planned: PlannedNode, fired: set[int]) -> bool:
    """Whether the node runs: every incoming edge fired, or with `wait: any`,
    at least one (a node without incoming edges is a trigger: always)."""
    ready = any if planned.node.get("wait") == "any" else all
    return not planned.incoming or ready(index in fired for index in planned.incoming)


def upstream_output(
    planned: PlannedNode, edges: list[dict], fired: set[int], results: dict
) -> Any:
    """`prev` for the node: its upstream node's output, or an object keyed by
    node id when there are several. With `wait: any`, only the first upstream
    node (in execution order) whose edge to it fired."""
    sources = [edges[index]["source"] for index in planned.incoming]
    if planned.node.get("wait") == "any":
        came = {edges[index]["source"] for index in planned.incoming if index in fired}
        sources = [node_id for node_id in results if node_id in came][:1]
    if not sources:
        return None
    if len(set(sources)) == 1:
        return results.get(sources[0])
    return {source: results.get(source) for source in dict.fromkeys(sources)}


def _invalid(node_id, message: str) -> RunStopped:
    return RunStopped(
        FlowRun.Status.FAILED,
        {"node_id": node_id, "code": "invalid_flow", "message": message},
    )
