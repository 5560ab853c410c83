"""The input the builder's Run tab starts from: what this flow was last run
with, else its trigger's pinned output, else an example made from its
`input_schema`, else `{}`. A fixed sample (`{"name": "Ada"}`) fits no flow but
the demo; each of these fits the flow at hand."""

from __future__ import annotations

from flows.models import Flow, FlowRun
from flows.nodes import NODE_KINDS

# Deep enough for any schema a person writes; a self-referencing one stops here.
MAX_DEPTH = 8


def run_sample(flow: Flow, *, reads_run_data: bool) -> dict:
    """The Run tab's first input. Run inputs and pins are run data: a role that
    may not read them gets the schema's example or `{}`."""
    if reads_run_data:
        last = (
            FlowRun.objects.filter(flow=flow)
            .order_by("-created_at")
            .values_list("input", flat=True)
            .first()
        )
        if isinstance(last, dict) and last:
            return last
        pinned = trigger_pin(flow)
        if pinned is not None:
            return pinned
    example = schema_example(flow.input_schema or {})
    return example if isinstance(example, dict) else {}


def trigger_pin(flow: Flow) -> dict | None:
    """The pinned output of the flow's trigger node, when it is an object."""
    for node in flow.nodes or []:
        kind = NODE_KINDS.get(node.get("type"))
        if kind is not None and kind.is_trigger:
            pinned = (flow.pins or {}).get(node.get("id"))
            if isinstance(pinned, dict):
                return pinned
    return None


def schema_example(schema, depth: int = 0):
    """A value that fits `schema`: strings "text", numbers 0, booleans false,
    arrays [], objects with an example of each property; an enum its first
    value."""
    if not isinstance(schema, dict) or depth > MAX_DEPTH:
        return None
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind is None and "properties" in schema:
        kind = "object"
    return _BY_TYPE.get(kind, lambda _s, _d: None)(schema, depth)


def _object(schema, depth):
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return {}
    return {name: schema_example(sub, depth + 1) for name, sub in properties.items()}


_BY_TYPE = {
    "string": lambda _s, _d: "text",
    "number": lambda _s, _d: 0,
    "integer": lambda _s, _d: 0,
    "boolean": lambda _s, _d: False,
    "array": lambda _s, _d: [],
    "null": lambda _s, _d: None,
    "object": _object,
}
