"""The response node: sets the HTTP response a webhook caller receives."""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, NodeContext, NodeError, NodeKind
from flows.nodes.checks import integer_between, string_map
from flows.nodes.templates import as_text

# Headers that belong to the server (framing, connection, cookies), never to a flow.
UNSAFE_HEADERS = frozenset(
    {
        "set-cookie",
        "connection",
        "transfer-encoding",
        "content-length",
        "keep-alive",
        "upgrade",
        "te",
        "trailer",
        "host",
    }
)


def unsafe_header(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered in UNSAFE_HEADERS or lowered.startswith("proxy-")


class ResponseNode(NodeKind):
    type = "response"
    label = "Response"
    description = "Sets the webhook's HTTP response."

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = integer_between(data, "status", 200, 599, required=False)
        problems += string_map(data, "headers")
        if not problems:
            for name in data.get("headers") or {}:
                if unsafe_header(name) or not name.strip():
                    problems.append(
                        FieldError(
                            "data.headers",
                            f"Header {name!r} cannot be set by a flow.",
                        )
                    )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        rendered = ctx.render(data.get("headers") or {})
        headers = {name: as_text(value) for name, value in rendered.items()}
        for name, value in headers.items():
            if "\n" in value or "\r" in value:
                raise NodeError(
                    "invalid_header", f"Header {name!r} must be one line of text."
                )
        response = {
            "status": data.get("status", 200),
            "headers": headers,
            "body": ctx.render(data.get("body")),
        }
        ctx.run.response = response
        return response
