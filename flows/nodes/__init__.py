"""The node registry: every kind a flow may use, by its `type` name.

A kind is a `NodeKind` subclass in its own module; adding one means adding its
instance to `ALL_KINDS` below. The graph validator and the engine both look kinds
up here, so a registered kind is checked at save time and runnable at once.
"""

from __future__ import annotations

from flows.nodes.agent import AgentNode
from flows.nodes.base import FieldError, NodeContext, NodeError, NodeKind, NodeTimeout
from flows.nodes.code import CodeNode
from flows.nodes.condition import ConditionNode
from flows.nodes.delay import DelayNode
from flows.nodes.http_request import HttpRequestNode
from flows.nodes.response import ResponseNode
from flows.nodes.transform import TransformNode
from flows.nodes.webhook import WebhookNode

ALL_KINDS: list[NodeKind] = [
    WebhookNode(),
    CodeNode(),
    ConditionNode(),
    TransformNode(),
    HttpRequestNode(),
    AgentNode(),
    DelayNode(),
    ResponseNode(),
]

NODE_KINDS: dict[str, NodeKind] = {kind.type: kind for kind in ALL_KINDS}


def get_kind(type_name: str) -> NodeKind | None:
    return NODE_KINDS.get(type_name)


__all__ = [
    "NODE_KINDS",
    "FieldError",
    "NodeContext",
    "NodeError",
    "NodeKind",
    "NodeTimeout",
    "get_kind",
]
