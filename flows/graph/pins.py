"""Pinned outputs (n8n's "pinned data"): a node's output fixed by the user for
test runs from the builder.

`Flow.pins` maps node ids to outputs. A test run from the builder (`?pins=true`
on the run endpoint) takes a pinned node's output instead of running it; no
webhook, schedule, agent or error run ever does. Pins are test data, so flow
exports leave them out. "Run this node" (`POST /api/flows/:id/nodes/:node_id/run`)
runs one node on its upstream nodes' pinned or last-run outputs.
"""

from __future__ import annotations

import json

from django.conf import settings

from core.storable import Unstorable, check_storable
from flows.nodes import get_kind

MAX_PINS = 200


def pin_problems(pins, nodes) -> list[str]:
    """What is wrong with `pins` for a flow with these nodes; [] when valid."""
    if not isinstance(pins, dict):
        return ["Pins must be an object mapping node ids to outputs."]
    if len(pins) > MAX_PINS:
        return [f"At most {MAX_PINS} nodes can be pinned."]
    by_id = {n.get("id"): n for n in nodes if isinstance(n, dict)}
    problems = []
    for node_id, output in pins.items():
        node = by_id.get(node_id)
        kind = get_kind(node.get("type")) if node else None
        if kind is None:
            problems.append(f"{node_id!r} is not a node of this flow.")
        elif kind.is_trigger or kind.output_handles != (None,):
            problems.append(
                f"{node.get('name') or node_id!r}: triggers and branching nodes "
                "cannot be pinned."
            )
        else:
            problems += _output_problems(node.get("name") or node_id, output)
    return problems


def _output_problems(name: str, output) -> list[str]:
    try:
        check_storable(output, what=f"The pinned output of {name!r}")
    except Unstorable as problem:
        return [str(problem)]
    size = len(json.dumps(output))
    if size > settings.RUN_MAX_OUTPUT_BYTES:
        return [
            f"The pinned output of {name!r} is {size:,} bytes; the limit is "
            f"{settings.RUN_MAX_OUTPUT_BYTES:,}."
        ]
    return []


def upstream_of(node_id: str, edges: list[dict]) -> set[str]:
    """Every node a path of edges leads from to `node_id`."""
    incoming: dict[str, list[str]] = {}
    for edge in edges:
        incoming.setdefault(edge.get("target"), []).append(edge.get("source"))
    found, stack = set(), [node_id]
    while stack:
        for source in incoming.get(stack.pop(), ()):
            if source not in found:
                found.add(source)
                stack.append(source)
    return found
