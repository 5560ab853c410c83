"""The condition node: a JavaScript expression picks the true or the false branch."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.checks import text
from flows.nodes.templates import js_truthy


class ConditionNode(NodeKind):
    type = "condition"
    label = "Condition"
    description = "Passes its input on through the true or the false output."
    output_handles = ("true", "false")
    form_fields = (
        FormField(
            "data.expression",
            "Expression",
            mono=True,
            help="A JavaScript expression. True follows the true output, "
            "false the false output.",
        ),
    )
    default_data = {"expression": "input.amount > 100"}

    def validate_data(self, data: dict) -> list[FieldError]:
        return text(data, "expression", max_length=10_000)

    def run(self, data: dict, ctx: NodeContext) -> Any:
        ctx.handle = "true" if js_truthy(ctx.evaluate(data["expression"])) else "false"
        return ctx.prev
