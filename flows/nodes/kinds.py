"""The node kinds of DESIGN.md section 6, as the graph validator sees them."""

from __future__ import annotations

from flows.nodes.base import NodeKind


class WebhookNode(NodeKind):
    type = "webhook"
    label = "Webhook"
    description = "Starts the flow; its output is the flow's input."
    is_trigger = True


class CodeNode(NodeKind):
    type = "code"
    label = "Code"
    description = "Runs JavaScript; returns any JSON value."


class ConditionNode(NodeKind):
    type = "condition"
    label = "Condition"
    description = "Passes its input on through the true or the false output."
    output_handles = ("true", "false")


class TransformNode(NodeKind):
    type = "transform"
    label = "Transform"
    description = "Builds an object from {{ }} templates."


class HttpRequestNode(NodeKind):
    type = "http_request"
    label = "HTTP request"
    description = "Calls a URL and outputs status, headers and body."


class AgentNode(NodeKind):
    type = "agent"
    label = "Agent"
    description = "Sends a message to an agent and outputs its reply."


class DelayNode(NodeKind):
    type = "delay"
    label = "Delay"
    description = "Waits, then passes its input on."


class ResponseNode(NodeKind):
    type = "response"
    label = "Response"
    description = "Sets the webhook's HTTP response."


ALL_KINDS = [
    WebhookNode(),
    CodeNode(),
    ConditionNode(),
    TransformNode(),
    HttpRequestNode(),
    AgentNode(),
    DelayNode(),
    ResponseNode(),
]
