"""Little graph builders for the engine tests: nodes and edges without the noise."""

from __future__ import annotations


def node(node_id: str, type_: str, **data) -> dict:
    return {
        "id": node_id,
        "type": type_,
        "name": node_id.title(),
        "position": {"x": 0, "y": 0},
        "data": data,
    }


def edge(source: str, target: str, handle: str | None = None) -> dict:
    return {
        "id": f"{source}-{handle or 'out'}-{target}",
        "source": source,
        "target": target,
        "sourceHandle": handle,
    }


def chain(*nodes: dict) -> tuple[list[dict], list[dict]]:
    """Nodes connected one after the other."""
    edges = [edge(a["id"], b["id"]) for a, b in zip(nodes, nodes[1:], strict=False)]
    return list(nodes), edges


def code(node_id: str, source: str) -> dict:
    return node(node_id, "code", language="javascript", code=source)


def trigger() -> dict:
    return node("trigger", "webhook", method="POST")


def chain_flow(*nodes: dict, **fields):
    """A saved flow whose nodes run one after the other."""
    from tests.factories import FlowFactory

    node_list, edges = chain(*nodes)
    return FlowFactory(nodes=node_list, edges=edges, **fields)
