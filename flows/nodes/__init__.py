"""The node registry: every kind a flow may use, by its `type` name."""

from __future__ import annotations

from flows.nodes.base import FieldError, NodeKind
from flows.nodes.kinds import ALL_KINDS

NODE_KINDS: dict[str, NodeKind] = {kind.type: kind for kind in ALL_KINDS}


def get_kind(type_name: str) -> NodeKind | None:
    return NODE_KINDS.get(type_name)


__all__ = ["NODE_KINDS", "FieldError", "NodeKind", "get_kind"]
