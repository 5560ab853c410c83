"""The webhook trigger: the flow's entry point, whose output is the run's input.

Its data says which HTTP methods the flow's webhook URL takes (`methods`,
default `["POST"]`; flows saved before had `method: "POST"`, read the same)
and which request headers a run keeps in `run.request.headers`
(`keep_headers`; docs/webhooks.md, "What reaches the flow").
"""

from __future__ import annotations

from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
DEFAULT_METHODS = ("POST",)
MAX_KEPT_HEADERS = 50


def methods_of(data: dict) -> tuple[str, ...]:
    """The methods a webhook node's data allows, in METHODS order."""
    chosen = data.get("methods")
    if not isinstance(chosen, list) or not chosen:
        chosen = [data.get("method") or DEFAULT_METHODS[0]]
    return tuple(method for method in METHODS if method in chosen)


def has_webhook_trigger(nodes: list) -> bool:
    """Whether the flow has a Webhook trigger node: only then does its public
    webhook URL answer (a schedule-only flow or a sub-flow has none)."""
    return any(isinstance(n, dict) and n.get("type") == "webhook" for n in nodes)


def webhook_settings(nodes: list) -> dict:
    """The data of a flow's webhook node ({} when it has none)."""
    for node in nodes:
        if isinstance(node, dict) and node.get("type") == "webhook":
            data = node.get("data")
            return data if isinstance(data, dict) else {}
    return {}


def request_values(meta: dict) -> dict:
    """What a webhook run's templates see as `run.request`: the method, the
    path after the flow's id, the query and the kept headers, from what the
    webhook stored on the run (webhooks/request_meta.py)."""
    return {
        "method": meta.get("method", "POST"),
        "path": meta.get("path", ""),
        "query": meta.get("query", {}),
        "headers": meta.get("headers", {}),
    }


class WebhookNode(NodeKind):
    type = "webhook"
    label = "Webhook"
    description = "Starts the flow; its output is the flow's input."
    is_trigger = True
    form_fields = (
        FormField(
            "data.methods",
            "Methods",
            widget="choices",
            options=METHODS,
            help="The HTTP methods the webhook URL takes. JSON, forms and text "
            "bodies become the input; a GET's input is its query.",
        ),
        FormField(
            "data.keep_headers",
            "Headers to keep",
            widget="lines",
            help="Request headers the flow sees in run.request.headers, one "
            "per line; empty keeps the usual safe ones. Cookie and "
            "Authorization are kept only when named here.",
        ),
    )
    default_data = {"methods": list(DEFAULT_METHODS), "keep_headers": []}

    def validate_data(self, data: dict) -> list[FieldError]:
        errors = []
        methods = data.get("methods")
        if methods is not None and (
            not isinstance(methods, list)
            or not methods
            or any(method not in METHODS for method in methods)
        ):
            errors.append(
                FieldError(
                    "data.methods",
                    f"Choose one or more of {', '.join(METHODS)}.",
                )
            )
        if "methods" not in data and data.get("method", "POST") not in METHODS:
            errors.append(
                FieldError("data.method", f"Choose one of {', '.join(METHODS)}.")
            )
        kept = data.get("keep_headers")
        if kept is not None and (
            not isinstance(kept, list)
            or len(kept) > MAX_KEPT_HEADERS
            or not all(isinstance(name, str) and name.strip() for name in kept)
        ):
            errors.append(
                FieldError(
                    "data.keep_headers",
                    f"List up to {MAX_KEPT_HEADERS} header names, one per line.",
                )
            )
        return errors

    def run(self, data: dict, ctx: NodeContext) -> Any:
        return ctx.input
