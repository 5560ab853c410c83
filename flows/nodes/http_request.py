"""The http_request node: one outbound HTTP call through `core.net.outbound`.

The node reads and renders its `data`, gives the call the earlier of its
`timeout_ms` and the run's deadline, and turns the client's failures into node
errors; the SSRF wall, redirects and limits live in `core.net.outbound`.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from core.net import outbound
from flows.nodes import checks
from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import integer_between, string_map, text
from flows.nodes.templates import as_text

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
DEFAULT_TIMEOUT_MS = 10_000


class HttpRequestNode(NodeKind):
    type = "http_request"
    label = "HTTP request"
    description = "Calls a URL and outputs status, headers and body."
    form_fields = (
        FormField("data.method", "Method", widget="select", options=METHODS),
        FormField(
            "data.url",
            "URL",
            mono=True,
            help="Templates allowed: https://api.example.com/{{ input.id }}",
        ),
        FormField("data.headers", "Headers", widget="keyvalue"),
        FormField(
            "data.body",
            "Body",
            widget="json",
            help="JSON, or plain text. Templates allowed inside strings.",
        ),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
        FormField(
            "data.credential_id",
            "Credential",
            widget="credential",
            kinds=("bearer", "header", "basic", "query", "custom", "oauth2"),
            help="Sent as its header, bearer token, basic auth, query parameter "
            "or OAuth2 access token. "
            "Manage them on the Credentials page.",
        ),
    )
    default_data = {
        "method": "GET",
        "url": "https://example.com/",
        "headers": {},
        "body": None,
        "timeout_ms": DEFAULT_TIMEOUT_MS,
        "credential_id": None,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        if data.get("method", "GET") not in METHODS:
            problems.append(
                FieldError(
                    "data.method", f"Method must be one of {', '.join(METHODS)}."
                )
            )
        url_problems = text(data, "url", max_length=4000)
        url = data.get("url")
        if not url_problems and "{{" not in url and not outbound.is_http_url(url):
            url_problems = [
                FieldError("data.url", "URL must start with http:// or https://.")
            ]
        problems += url_problems
        problems += string_map(data, "headers")
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
        method = data.get("method", "GET")
        url = ctx.render(data["url"])
        if not isinstance(url, str) or not outbound.is_http_url(url):
            raise NodeError("invalid_url", f"Not an http(s) URL: {str(url)[:200]!r}.")
        headers = {
            name: as_text(value)
            for name, value in ctx.render(data.get("headers") or {}).items()
        }
        # The same on every attempt: a resumed run may repeat this node
        # (at least once per node, docs/engine.md), and receivers can dedupe.
        if not any(name.lower() == "idempotency-key" for name in headers):
            headers["Idempotency-Key"] = ctx.idempotency_key
        body = ctx.render(data.get("body"))
        timeout_ms = data.get("timeout_ms", DEFAULT_TIMEOUT_MS)
        node_deadline = time.monotonic() + timeout_ms / 1000
        deadline = min(node_deadline, ctx.deadline)

        def send(url, headers):
            return outbound.request(
                method, url, headers, body, deadline, hops=ctx.hops + 1
            )

        try:
            if data.get("credential_id"):
                return ctx.send_signed(data["credential_id"], url, headers, send)
            return send(url, headers)
        except outbound.OutboundTimeout as error:
            if ctx.deadline <= node_deadline:
                raise NodeTimeout(
                    "run_timeout",
                    "The run's time limit "
                    f"({settings.RUN_TIMEOUT_SECONDS:g} s) ran out during the request.",
                ) from error
            raise NodeTimeout(
                "http_timeout",
                f"No complete answer within timeout_ms ({timeout_ms} ms).",
            ) from error
        except outbound.OutboundError as error:
            raise NodeError(error.code, error.message) from error
