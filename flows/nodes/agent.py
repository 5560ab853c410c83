"""The agent node: sends a templated message to an agent (the agents app runs it)."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import NodeContext, NodeError, NodeKind


class AgentNode(NodeKind):
    type = "agent"
    label = "Agent"
    description = "Sends a message to an agent and outputs its reply."

    def run(self, data: dict, ctx: NodeContext) -> Any:
        raise NodeError("agent_unavailable", "Agent nodes cannot run yet.")
