"""The http_request node: outbound HTTP calls through `core.net.outbound`.

The node reads and renders its `data` into one call; the call's deadline
(the earlier of its `timeout_ms` and the run's) and the client's failures as
node errors live in `flows.nodes.http_send` (shared with app_action), the SSRF
wall, redirects and limits in `core.net.outbound`, the `Retry-After` waits and
`on_http_error` in `flows.nodes.http_call`, the `pagination` loop in
`flows.nodes.http_paging`.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

from django.conf import settings

from core.net import outbound
from core.net.http_body import RESPONSE_FORMATS
from flows.nodes import checks
from flows.nodes.base import (
    HTTP_SIGNING,
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
)
from flows.nodes.checks import integer_between, string_map, text
from flows.nodes.http_call import HttpCall
from flows.nodes.http_checks import ON_HTTP_ERROR, answer_settings
from flows.nodes.http_files import BODY_TYPES, request_body
from flows.nodes.http_paging import fetch_pages
from flows.nodes.http_send import (
    DEFAULT_TIMEOUT_MS,
    node_call,
    outbound_failures,
    with_idempotency_key,
)
from flows.nodes.templates import as_text

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")


class HttpRequestNode(NodeKind):
    type = "http_request"
    label = "HTTP request"
    description = (
        "Calls a URL and outputs status, headers and body; "
        "with pagination, every page's items."
    )
    imports_curl = True
    form_fields = (
        FormField("data.method", "Method", widget="select", options=METHODS),
        FormField(
            "data.url",
            "URL",
            mono=True,
            help="Templates allowed: https://api.example.com/{{ input.id }}",
        ),
        FormField(
            "data.query",
            "Query parameters",
            widget="pairs",
            help="Added to the URL's query string. Templates allowed in values.",
        ),
        FormField("data.headers", "Headers", widget="keyvalue"),
        FormField(
            "data.body",
            "Body",
            widget="json",
            help="JSON, or plain text. Templates allowed inside strings. "
            "A file ({{ input.photo }}) is sent as its bytes.",
        ),
        FormField(
            "data.body_type",
            "Body type",
            widget="select",
            options=BODY_TYPES,
            help="auto: a file as its bytes, text as text, anything else as "
            "JSON. multipart: the body object as multipart/form-data, each "
            "field text or a file.",
        ),
        FormField("data.timeout_ms", "Timeout (ms)", widget="number", min=1),
        FormField(
            "data.credential_id",
            "Credential",
            widget="credential",
            kinds=(HTTP_SIGNING, "custom"),
            help="Sent as its header, bearer token, basic auth, query parameter "
            "or OAuth2 access token. "
            "Manage them on the Credentials page.",
        ),
        FormField(
            "data.on_http_error",
            "On HTTP error",
            widget="select",
            options=ON_HTTP_ERROR,
            help="fail: a 4xx/5xx answer fails the node with http_error (its "
            "status and the start of its body), so retries and the error output "
            "apply. output: the answer is the output; branch on its status.",
        ),
        FormField(
            "data.response_format",
            "Response format",
            widget="select",
            options=RESPONSE_FORMATS,
            help="auto: JSON when the content type says JSON, text when it "
            "says text, else a run file. json: always parsed (invalid JSON "
            "fails the node). text: never parsed. file: always a run file.",
        ),
        FormField(
            "data.pagination",
            "Pagination",
            widget="json",
            help='Empty: one request. {"mode": "link"} follows Link rel="next"; '
            '{"mode": "cursor", "next": "meta.next", "param": "cursor"}; '
            '{"mode": "page", "param": "page", "start": 1} until an empty page. '
            'Add "items": "data" (where each page\'s list is) and "max_pages" '
            "(default 100). Output: {items, pages, more}.",
        ),
    )
    default_data = {
        "method": "GET",
        "url": "https://example.com/",
        "headers": {},
        "body": None,
        "body_type": "auto",
        "timeout_ms": DEFAULT_TIMEOUT_MS,
        "credential_id": None,
        "query": [],
        "on_http_error": "fail",
        "response_format": "auto",
        "pagination": None,
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
        return problems + body_settings(data) + answer_settings(data)

    def run(self, data: dict, ctx: NodeContext) -> Any:
        method = data.get("method", "GET")
        url = ctx.render(data["url"])
        if not isinstance(url, str) or not outbound.is_http_url(url):
            raise NodeError("invalid_url", f"Not an http(s) URL: {str(url)[:200]!r}.")
        url = with_query(url, ctx.render(data.get("query") or []))
        headers = {
            name: as_text(value)
            for name, value in ctx.render(data.get("headers") or {}).items()
        }
        own_key = with_idempotency_key(headers, ctx)
        body = request_body(
            ctx.render(data.get("body")), data.get("body_type", "auto"), headers, ctx
        )
        timeout_ms = data.get("timeout_ms", DEFAULT_TIMEOUT_MS)
        pagination = data.get("pagination")
        call = node_call(
            ctx,
            method,
            headers,
            body,
            timeout_ms=timeout_ms,
            response_format=data.get("response_format", "auto"),
            # A page that is an error answer holds no items: paging always
            # fails on it (docs/decisions.md).
            fail_on_error=bool(pagination)
            or data.get("on_http_error", "fail") == "fail",
            credential_id=data.get("credential_id"),
        )
        with outbound_failures(ctx, call, timeout_ms):
            if not pagination:
                return call.answer(url)
            return fetch_pages(
                page_fetcher(call, None if own_key else ctx.idempotency_key),
                url,
                pagination,
                max_bytes=settings.RUN_MAX_OUTPUT_BYTES,
            )


def body_settings(data: dict) -> list[FieldError]:
    """`body_type` is one of BODY_TYPES; a multipart body is an object (or a
    template that renders to one)."""
    body_type = data.get("body_type", "auto")
    if body_type not in BODY_TYPES:
        return [FieldError("data.body_type", 'Body type is "auto" or "multipart".')]
    body = data.get("body")
    if body_type == "multipart" and not (
        isinstance(body, dict) or (isinstance(body, str) and "{{" in body)
    ):
        return [
            FieldError(
                "data.body",
                "A multipart body is an object of fields (each text or a file), "
                "or a template giving one.",
            )
        ]
    return []


def page_fetcher(call: HttpCall, idempotency_key: str | None):
    """`fetch(url, number)` for `fetch_pages`. With the node's own
    `idempotency_key` (None: the flow set its own header), page 2 on sends
    `<key>:<page>`: a receiver deduping by key must not answer page 2 with
    page 1's answer."""

    def fetch(url: str, number: int) -> dict:
        if idempotency_key is None or number == 1:
            return call.answer(url)
        key = f"{idempotency_key}:{number}"
        return call.answer(url, {**call.headers, "Idempotency-Key": key})

    return fetch


def with_query(url: str, pairs) -> str:
    """`url` with the node's rendered `query` pairs added after its own query
    (a name may repeat; a value that is a list adds the name once per item)."""
    params = []
    for pair in pairs:
        values = pair.get("value")
        for value in values if isinstance(values, list) else [values]:
            params.append((as_text(pair["name"]), as_text(value)))
    if not params:
        return url
    parts = urlsplit(url)
    query = urlencode(params)
    return urlunsplit(parts._replace(query=f"{parts.query}&{query}".lstrip("&")))
