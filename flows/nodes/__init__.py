"""The node registry: every kind a flow may use, by its `type` name.

A kind is a `NodeKind` subclass in its own module. The built-in kinds below are
registered when this package is imported; an app adds its own with `register`
from its `AppConfig.ready()` (agents adds the `agent` kind that way), so flows
never imports the apps that extend it. The graph validator, the engine and the
builder's palette all read the registry when they run, so a registered kind is
checked at save time, runnable and offered in the builder at once.
"""

from __future__ import annotations

from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.call_flow import CallFlowNode
from flows.nodes.code import CodeNode
from flows.nodes.condition import ConditionNode
from flows.nodes.delay import DelayNode
from flows.nodes.for_each import ForEachNode
from flows.nodes.form import FormNode
from flows.nodes.http_request import HttpRequestNode
from flows.nodes.knowledge_search import KnowledgeSearchNode
from flows.nodes.list import ListNode
from flows.nodes.mcp_tool import McpToolNode
from flows.nodes.postgres_query import PostgresQueryNode
from flows.nodes.response import ResponseNode
from flows.nodes.schedule import ScheduleNode
from flows.nodes.send_email import SendEmailNode
from flows.nodes.stop import StopNode
from flows.nodes.switch import SwitchNode
from flows.nodes.transform import TransformNode
from flows.nodes.wait import WaitNode
from flows.nodes.webhook import WebhookNode

NODE_KINDS: dict[str, NodeKind] = {}


class DuplicateNodeKind(Exception):
    """A second kind claimed a `type` name that is already registered."""


def register(kind: NodeKind) -> NodeKind:
    """Make `kind` available to flows under `kind.type`; a taken name is refused.

    Refusing (rather than replacing) keeps one app from silently changing what
    another's saved flows do.
    """
    if not kind.type:
        raise ValueError(f"{type(kind).__name__} has no `type` name.")
    if kind.type in NODE_KINDS:
        raise DuplicateNodeKind(
            f"Node type {kind.type!r} is already registered "
            f"by {type(NODE_KINDS[kind.type]).__name__}."
        )
    NODE_KINDS[kind.type] = kind
    return kind


def get_kind(type_name: str) -> NodeKind | None:
    """The kind registered as `type_name`; None for anything else (any JSON value)."""
    return NODE_KINDS.get(type_name) if isinstance(type_name, str) else None


BUILTIN_KINDS: tuple[NodeKind, ...] = (
    WebhookNode(),
    FormNode(),
    ScheduleNode(),
    CodeNode(),
    ConditionNode(),
    SwitchNode(),
    TransformNode(),
    ListNode(),
    HttpRequestNode(),
    DelayNode(),
    CallFlowNode(),
    ForEachNode(),
    WaitNode(),
    ResponseNode(),
    StopNode(),
    SendEmailNode(),
    PostgresQueryNode(),
    McpToolNode(),
    KnowledgeSearchNode(),
)
for builtin in BUILTIN_KINDS:
    register(builtin)


__all__ = [
    "NODE_KINDS",
    "DuplicateNodeKind",
    "FieldError",
    "FormField",
    "NodeContext",
    "NodeError",
    "NodeKind",
    "NodeTimeout",
    "get_kind",
    "register",
]
