"""The webhook trigger: the flow's entry point, whose output is the run's input."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind


class WebhookNode(NodeKind):
    type = "webhook"
    label = "Webhook"
    description = "Starts the flow; its output is the flow's input."
    is_trigger = True
    form_fields = (
        FormField(
            "data.method",
            "Method",
            widget="select",
            options=("POST",),
            help="The webhook accepts POST with a JSON object body; "
            "the body is the flow's input.",
        ),
    )
    default_data = {"method": "POST"}

    def validate_data(self, data: dict) -> list[FieldError]:
        if data.get("method", "POST") != "POST":
            return [FieldError("data.method", "Webhooks accept POST only.")]
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.input
