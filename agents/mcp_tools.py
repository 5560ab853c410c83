"""An agent's MCP servers: their tools offered to the model, and calling one.

An agent keeps its servers in `Agent.mcp_servers`, each `{name, url,
credential, allowed_tools, timeout_seconds, requires_approval}`; every tool of
a server that requires approval asks first (agents/approval.py). At the start
of a turn each server's tools are listed once (`remote_tools`; the list is the
turn's, so a tool loop asks each server once) and offered as
`mcp_<server>_<tool>`. A server that cannot be listed (down, refused by the
address wall, a stale credential) simply offers no tools that turn: the chat
goes on.

Each call waits the smaller of the server's `timeout_seconds` and the time
left in the turn (a flow run's deadline for an agent node): no fixed limit,
so a tool may run for minutes when the caller has them. The model reads
`{success, output, error}` like a flow tool's summary, capped at the same
16,000 characters by the toolbox.
"""

from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.providers import ToolSpec
from core.startup import import_on_first_use

if TYPE_CHECKING:
    from agents.models import Agent

logger = logging.getLogger("weir.agents")

DEFAULT_TIMEOUT_SECONDS = 300
MAX_TIMEOUT_SECONDS = 3600
# Listing a server's tools should be quick; a turn does not wait longer for it.
LIST_TIMEOUT_SECONDS = 15
MAX_SERVERS = 10
SERVER_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,19}$")


@dataclass(frozen=True)
class RemoteTarget:
    """Where one offered function goes: a server's URL, headers and tool name."""

    url: str
    headers: dict
    tool: str
    timeout_seconds: float
    asks_first: bool = False  # the server's `requires_approval`


def function_name(server: str, tool: str) -> str:
    """`mcp_<server>_<tool>` with only the characters every provider accepts."""
    safe = re.sub(r"[^a-zA-Z0-9_-]+", "_", tool).strip("_-") or "tool"
    return f"mcp_{server}_{safe}"[:64]


def server_headers(agent: Agent, server: dict) -> dict | None:
    """The Authorization (or other) header from the server's credential; None
    when the credential is gone, not a key, or not of the agent's workspace
    (checked here too, at run time, not only when the agent was saved)."""
    credential_id = server.get("credential")
    if not credential_id:
        return {}
    from agents.models import KEY_KINDS
    from flows.models import Credential

    credential = Credential.objects.filter(
        pk=credential_id, workspace_id=agent.workspace_id, kind__in=KEY_KINDS
    ).first()
    if credential is None:
        return None
    headers: dict = {}
    credential.apply(credential.secrets(), headers, [])
    return headers


def remote_tools(
    agent: Agent, deadline: float | None
) -> list[tuple[ToolSpec, RemoteTarget]]:
    """Every tool the agent's servers offer now, as specs the model sees."""
    mcp_client = import_on_first_use("core.net.mcp_client")
    offered = []
    for server in agent.mcp_servers or []:
        headers = server_headers(agent, server)
        if headers is None:
            logger.warning(
                "MCP server %s of agent %s: credential gone",
                server.get("name"),
                agent.pk,
            )
            continue
        timeout = float(server.get("timeout_seconds") or DEFAULT_TIMEOUT_SECONDS)
        until = call_deadline(min(timeout, LIST_TIMEOUT_SECONDS), deadline)
        try:
            tools = mcp_client.list_tools(server["url"], headers, until)
        except mcp_client.McpError as error:
            logger.warning(
                "MCP server %s of agent %s not listed: %s %s",
                server.get("name"),
                agent.pk,
                error.code,
                error.message,
            )
            continue
        allowed = set(server.get("allowed_tools") or [])
        for tool in tools:
            if allowed and tool.name not in allowed:
                continue
            spec = ToolSpec(
                name=function_name(server["name"], tool.name),
                title=f"{server['name']}: {tool.name}",
                description=tool.description
                or f"Tool {tool.name!r} of the MCP server {server['name']!r}.",
                parameters=object_schema(tool.input_schema),
            )
            target = RemoteTarget(
                server["url"],
                headers,
                tool.name,
                timeout,
                asks_first=bool(server.get("requires_approval")),
            )
            offered.append((spec, target))
    return offered


def object_schema(schema: dict) -> dict:
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return {"type": "object", "properties": {}}
    return schema


def call_deadline(timeout: float, deadline: float | None) -> float:
    """The smaller of `timeout` from now and the caller's deadline."""
    until = time.monotonic() + timeout
    return until if deadline is None else min(until, deadline)


def call_remote(target: RemoteTarget, arguments: dict, deadline: float | None) -> dict:
    """What the model reads of one call: `{success, output, error}`."""
    until = call_deadline(target.timeout_seconds, deadline)
    mcp_client = import_on_first_use("core.net.mcp_client")
    try:
        result = mcp_client.call_tool(
            target.url, target.headers, target.tool, arguments, until
        )
    except mcp_client.McpError as error:
        return {
            "success": False,
            "output": None,
            "error": {"code": error.code, "message": error.message},
        }
    if result["is_error"]:
        return {
            "success": False,
            "output": None,
            "error": {"code": "tool_error", "message": result["content"]},
        }
    output = result["structured"]
    return {
        "success": True,
        "output": result["content"] if output is None else output,
        "error": None,
    }
