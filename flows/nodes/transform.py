"""The transform node: an object whose values are `{{ }}` templates, filled in."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind


class TransformNode(NodeKind):
    type = "transform"
    label = "Transform"
    description = "Builds an object from {{ }} templates."
    form_fields = (
        FormField(
            "data.values",
            "Values",
            widget="keyvalue",
            help="Each value is a template: {{ input.name }}, {{ prev.total }}.",
        ),
    )
    default_data = {"values": {"greeting": "Hello {{ input.name }}"}}

    def validate_data(self, data: dict) -> list[FieldError]:
        if not isinstance(data.get("values"), dict):
            return [FieldError("data.values", "Values must be an object.")]
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.render(data["values"])
