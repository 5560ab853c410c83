"""The difference between two flow snapshots, keyed by node id.

Nodes are matched by `id`, edges by what they connect (source, source handle,
target), so a renamed node reads as changed, not as removed and added. A
changed node lists the JSON paths that differ (`data.code`, `position.x`); one
whose only changes are under `position` is marked `layout_only`, so a reader
can skip moves on the canvas. Other fields (name, description, input schema,
webhook settings) are listed by path with their values before and after.
"""

from __future__ import annotations

from typing import Any

FIELDS = ("name", "description", "input_schema", "settings")


def diff(old: dict, new: dict) -> dict:
    """`{fields, nodes: {added, removed, changed}, edges: {added, removed},
    summary}` from snapshot `old` to snapshot `new`."""
    fields = []
    for field in FIELDS:
        for path in paths_between(old.get(field), new.get(field), field):
            fields.append(
                {
                    "path": path,
                    "before": value_at(old, path),
                    "after": value_at(new, path),
                }
            )
    nodes = _node_changes(old.get("nodes") or [], new.get("nodes") or [])
    edges = _edge_changes(old.get("edges") or [], new.get("edges") or [])
    moved = sum(1 for change in nodes["changed"] if change["layout_only"])
    return {
        "fields": fields,
        "nodes": nodes,
        "edges": edges,
        "summary": {
            "nodes_added": len(nodes["added"]),
            "nodes_removed": len(nodes["removed"]),
            "nodes_changed": len(nodes["changed"]) - moved,
            "nodes_moved": moved,
            "edges_added": len(edges["added"]),
            "edges_removed": len(edges["removed"]),
            "fields_changed": len(fields),
        },
    }


def paths_between(old: Any, new: Any, path: str = "") -> list[str]:
    """The JSON paths (`a.b[2].c`) at which `old` and `new` differ: the
    deepest that still exist on both sides."""
    if old == new:
        return []
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in [*old, *(k for k in new if k not in old)]:
            child = f"{path}.{key}" if path else str(key)
            if key not in old or key not in new:
                found.append(child)
            else:
                found.extend(paths_between(old[key], new[key], child))
        return found
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        found = []
        for index, (a, b) in enumerate(zip(old, new, strict=True)):
            found.extend(paths_between(a, b, f"{path}[{index}]"))
        return found
    return [path]


def value_at(document: Any, path: str) -> Any:
    """The value at a dotted path of `paths_between` (None where it is absent)."""
    value = document
    for part in path.replace("[", ".[").split("."):
        if part.startswith("["):
            index = int(part[1:-1])
            in_range = isinstance(value, list) and index < len(value)
            value = value[index] if in_range else None
        else:
            value = value.get(part) if isinstance(value, dict) else None
    return value


def _by_id(nodes: list) -> dict[str, dict]:
    return {
        str(node.get("id")): node
        for node in nodes
        if isinstance(node, dict) and node.get("id") is not None
    }


def _node_changes(old: list, new: list) -> dict:
    before, after = _by_id(old), _by_id(new)
    changed = []
    for node_id in after.keys() & before.keys():
        paths = paths_between(before[node_id], after[node_id])
        if paths:
            changed.append(
                {
                    "id": node_id,
                    "name": after[node_id].get("name") or node_id,
                    "paths": paths,
                    "layout_only": all(
                        p == "position" or p.startswith("position.") for p in paths
                    ),
                }
            )
    return {
        "added": [_brief(after[i]) for i in after if i not in before],
        "removed": [_brief(before[i]) for i in before if i not in after],
        "changed": sorted(changed, key=lambda change: change["id"]),
    }


def _brief(node: dict) -> dict:
    return {
        "id": str(node.get("id")),
        "name": node.get("name") or str(node.get("id")),
        "type": node.get("type"),
    }


def _edge_key(edge: dict) -> tuple:
    return (edge.get("source"), edge.get("sourceHandle"), edge.get("target"))


def _edge_changes(old: list, new: list) -> dict:
    before = {_edge_key(e): e for e in old if isinstance(e, dict)}
    after = {_edge_key(e): e for e in new if isinstance(e, dict)}
    return {
        "added": [after[key] for key in after if key not in before],
        "removed": [before[key] for key in before if key not in after],
    }
