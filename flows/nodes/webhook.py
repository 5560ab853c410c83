"""The webhook trigger: the flow's entry point, whose output is the run's input."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, NodeContext, NodeKind


class WebhookNode(NodeKind):
    type = "webhook"
    label = "Webhook"
    description = "Starts the flow; its output is the flow's input."
    is_trigger = True

    def validate_data(self, data: dict) -> list[FieldError]:
        if data.get("method", "POST") != "POST":
            return [FieldError("data.method", "Webhooks accept POST only.")]
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.input
