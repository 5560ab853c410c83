"""The call_flow node: runs another of the owner's flows (flows/engine/calls.py)."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.errors import NodeError

MODES = ("wait", "start")


def flow_id_problems(data: dict) -> list[FieldError]:
    """`data.flow_id` must be text; that it names one of the owner's flows is
    checked at save by flows/refs.py (a new node's empty id is refused there)."""
    if not isinstance(data.get("flow_id", ""), str):
        return [FieldError("data.flow_id", "Flow must be a flow's id.")]
    return []


def calls_of(ctx: NodeContext):
    if ctx.calls is None:
        raise NodeError("not_runnable", "Only a run can call another flow.")
    return ctx.calls


class CallFlowNode(NodeKind):
    type = "call_flow"
    label = "Call flow"
    description = "Runs another of your flows with an input; gives its result."
    form_fields = (
        FormField(
            "data.flow_id",
            "Flow",
            widget="flow",
            help="One of your flows; its run starts at its webhook node.",
        ),
        FormField(
            "data.input",
            "Input",
            widget="json",
            help="A template; empty means this node's input ({{ prev }}). "
            "Checked against the flow's input schema.",
        ),
        FormField(
            "data.mode",
            "Mode",
            widget="select",
            options=MODES,
            help="wait: run it now and give {run_id, result}; start: queue it "
            "and go on with {run_id, status}.",
        ),
    )
    default_data = {"flow_id": "", "input": "{{ prev }}", "mode": "wait"}

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = flow_id_problems(data)
        if data.get("mode", "wait") not in MODES:
            problems.append(FieldError("data.mode", 'Mode must be "wait" or "start".'))
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        calls = calls_of(ctx)
        flow = calls.flow(data["flow_id"])
        input = ctx.render(data["input"]) if "input" in data else ctx.prev
        if data.get("mode", "wait") == "start":
            child = calls.start(flow, input)
            ctx.log(f"Queued run {child.id} of {flow.name!r}.")
            return {"run_id": str(child.id), "status": child.status}
        child = calls.call(flow, input)
        ctx.log(f"Run {child.id} of {flow.name!r}: {child.status}.")
        return {"run_id": str(child.id), "result": calls.result(child, flow)}
