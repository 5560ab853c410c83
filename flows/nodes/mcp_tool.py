"""The mcp_tool node: one tool of a remote MCP server, through `core.net.mcp_client`.

Any MCP server (GitHub, Slack, a database…) without a node of its own: the
node renders its arguments, calls the tool before the run's deadline (or its
own `timeout_ms`, whichever comes first) behind the http_request node's address
wall, and outputs `{content, structured}`. A tool that reports an error fails
the node `tool_error`; the client's failures keep their codes.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from core.net import outbound
from core.startup import import_on_first_use
from flows.nodes import checks
from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import integer_between, text

DEFAULT_TIMEOUT_MS = 30_000
# Credentials whose header an MCP server reads (Authorization or its own).
CREDENTIAL_KINDS = ("bearer", "header")


class McpToolNode(NodeKind):
    type = "mcp_tool"
    label = "MCP tool"
    description = "Calls one tool of an MCP server and outputs its result."
    form_fields = (
        FormField(
            "data.server_url",
            "Server URL",
            mono=True,
            help="The server's Streamable HTTP endpoint, e.g. "
            "https://mcp.example.com/mcp.",
        ),
        FormField(
            "data.credential_id",
            "Credential",
            widget="credential",
            kinds=CREDENTIAL_KINDS,
            help="Sent as its header (a bearer token as Authorization).",
        ),
        FormField("data.tool", "Tool", mono=True, help="The tool's name."),
        FormField(
            "data.arguments",
            "Arguments",
            widget="json",
            help='A JSON object; templates allowed: {"q": "{{ input.text }}"}.',
        ),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
    )
    default_data = {
        "server_url": "https://mcp.example.com/mcp",
        "credential_id": None,
        "tool": "",
        "arguments": {},
        "timeout_ms": DEFAULT_TIMEOUT_MS,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = text(data, "server_url", max_length=4000)
        url = data.get("server_url")
        if not problems and "{{" not in url and not outbound.is_http_url(url):
            problems.append(
                FieldError(
                    "data.server_url", "URL must start with http:// or https://."
                )
            )
        problems += text(data, "tool", max_length=200)
        arguments = data.get("arguments", {})
        if not isinstance(arguments, dict | str):
            problems.append(
                FieldError("data.arguments", "Arguments are a JSON object.")
            )
        problems += checks.credential_id(data)
        problems += integer_between(
            data,
            "timeout_ms",
            1,
            int(settings.RUN_TIMEOUT_SECONDS * 1000),
            required=False,
        )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        url = ctx.render(data["server_url"])
        if not isinstance(url, str) or not outbound.is_http_url(url):
            raise NodeError("invalid_url", f"Not an http(s) URL: {str(url)[:200]!r}.")
        arguments = ctx.render(data.get("arguments") or {})
        if not isinstance(arguments, dict):
            raise NodeError("invalid_arguments", "The arguments must be a JSON object.")
        headers: dict = {}
        if data.get("credential_id"):
            credential, secrets = ctx.credential(data["credential_id"])
            if credential.kind not in CREDENTIAL_KINDS:
                raise NodeError(
                    "credential_kind",
                    f"{credential.name} is not a bearer or header one.",
                )
            credential.apply(secrets, headers, [])
        timeout_ms = data.get("timeout_ms", DEFAULT_TIMEOUT_MS)
        node_deadline = time.monotonic() + timeout_ms / 1000
        deadline = min(node_deadline, ctx.deadline)
        mcp_client = import_on_first_use("core.net.mcp_client")
        try:
            result = mcp_client.call_tool(
                url, headers, data["tool"], arguments, deadline
            )
        except mcp_client.McpError as error:
            if error.code != "timeout":
                raise NodeError(error.code, error.message) from error
            if ctx.deadline <= node_deadline:
                raise NodeTimeout(
                    "run_timeout",
                    "The run's time limit "
                    f"({settings.RUN_TIMEOUT_SECONDS:g} s) ran out during the call.",
                ) from error
            raise NodeTimeout(
                "mcp_timeout", f"No answer within timeout_ms ({timeout_ms} ms)."
            ) from error
        if result["is_error"]:
            raise NodeError(
                "tool_error", result["content"][:2000] or "The tool failed."
            )
        return {"content": result["content"], "structured": result["structured"]}
