"""The transform node: an object whose values are `{{ }}` templates, filled in."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, NodeContext, NodeKind


class TransformNode(NodeKind):
    type = "transform"
    label = "Transform"
    description = "Builds an object from {{ }} templates."

    def validate_data(self, data: dict) -> list[FieldError]:
        if not isinstance(data.get("values"), dict):
            return [FieldError("data.values", "Values must be an object.")]
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.render(data["values"])
