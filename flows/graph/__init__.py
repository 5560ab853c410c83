"""Whole-graph validation for flows (docs/api.md).

`validate_graph` reports every problem at once, each with the index of the node
or edge it concerns, so the builder can point at all of them in one pass.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS

import sandbox
from flows.graph.retry import retry_problems
from flows.nodes import get_kind

MAX_ID_LENGTH = 100
MAX_NAME_LENGTH = 200
# A node's `wait`: "all" runs it once every incoming edge from a node that ran
# has fired; "any" once at least one has (merging the branches of a condition).
WAIT_MODES = ("all", "any")
# A node with `error_output: true` has this extra handle: after a failure (its
# retries spent) the error flows out there and the run goes on (docs/engine.md).
ERROR_HANDLE = "error"


def output_handles(node: dict, kind) -> tuple:
    """The handles an edge may leave `node` from."""
    data = node.get("data")
    handles = kind.handles(data if isinstance(data, dict) else {})
    if node.get("error_output") is True:
        return (*handles, ERROR_HANDLE)
    return handles


class GraphErrors:
    """Collects problems as `{"nodes": [...], "edges": [...], "graph": [...]}`."""

    def __init__(self):
        self.nodes: list[dict] = []
        self.edges: list[dict] = []
        self.graph: list[dict] = []

    def node(self, index: int, field: str, message: str) -> None:
        self.nodes.append({"index": index, "field": field, "message": message})

    def edge(self, index: int, field: str, message: str) -> None:
        self.edges.append({"index": index, "field": field, "message": message})

    def whole(self, field: str, message: str) -> None:
        self.graph.append({"field": field, "message": message})

    def __bool__(self) -> bool:
        return bool(self.nodes or self.edges or self.graph)

    def as_details(self) -> dict:
        sections = {"graph": self.graph, "nodes": self.nodes, "edges": self.edges}
        return {key: value for key, value in sections.items() if value}

    def by_field(self) -> dict[str, list[str]]:
        """The problems as a model's ValidationError wants them: by field name."""
        fields: dict[str, list[str]] = {}
        for problem in self.graph:
            field = problem["field"] if problem["field"] in ("nodes", "edges") else ""
            fields.setdefault(field or NON_FIELD_ERRORS, []).append(problem["message"])
        for field, kind, problems in (
            ("nodes", "Node", self.nodes),
            ("edges", "Edge", self.edges),
        ):
            for problem in problems:
                fields.setdefault(field, []).append(
                    f"{kind} {problem['index']}: {problem['message']}"
                )
        return fields

    def summary(self) -> str:
        first = (self.graph or self.nodes or self.edges)[0]
        count = len(self.graph) + len(self.nodes) + len(self.edges)
        where = ""
        if "index" in first:
            kind = "Node" if first in self.nodes else "Edge"
            where = f"{kind} {first['index']}: "
        more = (
            f" ({count - 1} more problem{'s' if count > 2 else ''})"
            if count > 1
            else ""
        )
        return f"{where}{first['message']}{more}"


def _is_number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_nodes(nodes: list, errors: GraphErrors) -> dict[str, dict]:
    """Per-node checks; returns the valid nodes by id for the edge checks."""
    by_id: dict[str, dict] = {}
    triggers: list[int] = []
    for index, node in enumerate(nodes):
        if not isinstance(node, dict):
            errors.node(index, "", "Each node must be an object.")
            continue
        node_id = node.get("id")
        if not isinstance(node_id, str) or not node_id.strip():
            errors.node(index, "id", "Each node needs a non-empty string id.")
        elif len(node_id) > MAX_ID_LENGTH:
            errors.node(
                index, "id", f"Node ids are at most {MAX_ID_LENGTH} characters."
            )
        elif node_id in by_id:
            errors.node(index, "id", f"Node id '{node_id}' is used more than once.")
        else:
            by_id[node_id] = node
        name = node.get("name", "")
        if not isinstance(name, str) or len(name) > MAX_NAME_LENGTH:
            errors.node(
                index,
                "name",
                f"Name must be text of at most {MAX_NAME_LENGTH} characters.",
            )
        position = node.get("position")
        if position is not None and not (
            isinstance(position, dict)
            and _is_number(position.get("x"))
            and _is_number(position.get("y"))
        ):
            errors.node(index, "position", "Position must be {x: number, y: number}.")
        if node.get("wait", "all") not in WAIT_MODES:
            errors.node(index, "wait", 'Wait must be "all" or "any".')
        if node.get("error_output", False) not in (True, False):
            errors.node(index, "error_output", "Error output must be true or false.")
        for field, message in retry_problems(node.get("retry")):
            errors.node(index, field, message)
        data = node.get("data", {})
        if not isinstance(data, dict):
            errors.node(index, "data", "Data must be an object.")
            data = None
        kind = get_kind(node.get("type")) if isinstance(node.get("type"), str) else None
        if kind is None:
            errors.node(index, "type", f"Unknown node type {node.get('type')!r}.")
            continue
        if kind.is_trigger:
            triggers.append(index)
        if data is not None:
            for problem in kind.validate_data(data):
                errors.node(index, problem.field, problem.message)
    seen_kinds: set[str] = set()
    for index in triggers:
        kind_name = nodes[index].get("type")
        if kind_name in seen_kinds:
            errors.node(
                index, "type", f"A flow has at most one {kind_name} trigger node."
            )
        seen_kinds.add(kind_name)
    return by_id


def _check_edges(
    edges: list, nodes_by_id: dict[str, dict], errors: GraphErrors
) -> list:
    """Per-edge checks; returns the valid (source, target) pairs."""
    seen_ids: set[str] = set()
    seen_links: set[tuple] = set()
    links: list[tuple[str, str]] = []
    for index, edge in enumerate(edges):
        if not isinstance(edge, dict):
            errors.edge(index, "", "Each edge must be an object.")
            continue
        edge_id = edge.get("id")
        if not isinstance(edge_id, str) or not edge_id.strip():
            errors.edge(index, "id", "Each edge needs a non-empty string id.")
        elif edge_id in seen_ids:
            errors.edge(index, "id", f"Edge id '{edge_id}' is used more than once.")
        else:
            seen_ids.add(edge_id)
        ends_ok = True
        for end in ("source", "target"):
            value = edge.get(end)
            if not isinstance(value, str) or value not in nodes_by_id:
                errors.edge(
                    index, end, f"{end.title()} {value!r} is not a node of this flow."
                )
                ends_ok = False
        if not ends_ok:
            continue
        source, target = edge["source"], edge["target"]
        source_kind = get_kind(nodes_by_id[source].get("type"))
        target_kind = get_kind(nodes_by_id[target].get("type"))
        if source_kind is None or target_kind is None:
            continue  # the node's own "Unknown node type" error says why
        handle = edge.get("sourceHandle")
        handles = output_handles(nodes_by_id[source], source_kind)
        if handle not in handles:
            allowed = [h for h in handles if h is not None]
            hint = f"one of {', '.join(allowed)}" if allowed else "null"
            errors.edge(
                index,
                "sourceHandle",
                f"Handle {handle!r} is not an output of node '{source}'; use {hint}.",
            )
            continue
        if source == target:
            errors.edge(index, "target", "An edge cannot connect a node to itself.")
            continue
        if target_kind.is_trigger:
            errors.edge(index, "target", "A trigger node cannot have incoming edges.")
            continue
        link = (source, handle, target)
        if link in seen_links:
            errors.edge(index, "target", "The same connection appears twice.")
            continue
        seen_links.add(link)
        links.append((source, target))
    return links


def topological_order(
    node_ids: Iterable[str], links: Iterable[tuple[str, str]]
) -> list[str]:
    """`node_ids` in an order where every link's source comes before its target.

    Kahn's algorithm; ties keep the order of `node_ids`. A node on a cycle, or
    downstream of one, never becomes ready, so it is missing from the result.
    """
    indegree = dict.fromkeys(node_ids, 0)
    outgoing: dict[str, list[str]] = {node_id: [] for node_id in indegree}
    for source, target in links:
        outgoing[source].append(target)
        indegree[target] += 1
    ready = deque(node_id for node_id, degree in indegree.items() if degree == 0)
    order = []
    while ready:
        node_id = ready.popleft()
        order.append(node_id)
        for target in outgoing[node_id]:
            indegree[target] -= 1
            if indegree[target] == 0:
                ready.append(target)
    return order


def reachable_from_triggers(
    nodes: list[dict], edges: list[dict], starts: set[str] | None = None
) -> set[str]:
    """Ids of the trigger nodes and of every node a path of edges leads to from one.

    Only these run (docs/api.md); any other node is skipped with a reason, so a
    node left unconnected on the canvas can never fail a run. `starts` limits
    the triggers followed to these ids (the ones the run started from). Edges
    pointing at unknown nodes are ignored here (the validator reports them).
    """
    outgoing: dict[str, list[str]] = {}
    for edge in edges:
        outgoing.setdefault(edge.get("source"), []).append(edge.get("target"))
    stack = [
        node["id"]
        for node in nodes
        if getattr(get_kind(node.get("type")), "is_trigger", False)
        and (starts is None or node["id"] in starts)
    ]
    reached = set(stack)
    while stack:
        for target in outgoing.get(stack.pop(), ()):
            if target not in reached:
                reached.add(target)
                stack.append(target)
    return reached


def _check_cycles(nodes_by_id: dict, links: list, errors: GraphErrors) -> None:
    ordered = set(topological_order(nodes_by_id, links))
    on_cycle = [node_id for node_id in nodes_by_id if node_id not in ordered]
    if on_cycle:
        errors.whole(
            "edges",
            "The flow has a cycle through nodes: "
            + ", ".join(sorted(on_cycle)[:20])
            + ".",
        )


def validate_graph(nodes, edges) -> GraphErrors:
    """Every structural problem of a graph; empty (falsy) when the graph is valid."""
    errors = GraphErrors()
    if not isinstance(nodes, list):
        errors.whole("nodes", "Nodes must be a list.")
    if not isinstance(edges, list):
        errors.whole("edges", "Edges must be a list.")
    if errors:
        return errors
    if len(nodes) > settings.FLOW_MAX_NODES:
        errors.whole("nodes", f"A flow has at most {settings.FLOW_MAX_NODES} nodes.")
    if len(edges) > settings.FLOW_MAX_EDGES:
        errors.whole("edges", f"A flow has at most {settings.FLOW_MAX_EDGES} edges.")
    size = len(json.dumps({"nodes": nodes, "edges": edges}, separators=(",", ":")))
    if size > settings.FLOW_MAX_GRAPH_BYTES:
        errors.whole(
            "",
            f"The graph is {size} bytes of JSON; the limit is "
            f"{settings.FLOW_MAX_GRAPH_BYTES}.",
        )
    if errors:
        return errors
    with sandbox.check_budget(settings.SAVE_CHECK_SECONDS):
        nodes_by_id = _check_nodes(nodes, errors)
    links = _check_edges(edges, nodes_by_id, errors)
    _check_cycles(nodes_by_id, links, errors)
    return errors
