"""The response node: sets the HTTP response a webhook caller receives.

It declares `sets_response`: its output is the response, and the engine (not
the node) stores it on the run.
"""

from __future__ import annotations

import re
from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeError, NodeKind
from flows.nodes.checks import is_integer, string_map
from flows.nodes.templates import as_text, split_template

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
# RFC 9110 section 5.6.2: a field name is a token.
TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# RFC 9110 section 5.5: field-value = *( VCHAR / obs-text / SP / HTAB ).
FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")
# Optional whitespace around a value is not part of it (RFC 9110 section 5.5).
OWS = " \t"
LOWEST_STATUS, HIGHEST_STATUS = 200, 599


def unsafe_header(name: str) -> bool:
    lowered = name.strip().lower()
    return lowered in UNSAFE_HEADERS or lowered.startswith("proxy-")


def valid_header_name(name: str) -> bool:
    """A field name HTTP allows (RFC 9110 token): no spaces, colons or non-ASCII."""
    return TOKEN.fullmatch(name) is not None


def valid_header_value(value: str) -> bool:
    """RFC 9110 section 5.5: visible ASCII, Latin-1 beyond it, spaces and tabs.

    Every other control character (NUL, CR, LF, \\x0b, \\x1e, DEL...) is refused:
    a server such as gunicorn would answer its own 500 page instead.
    """
    return FIELD_VALUE.fullmatch(value) is not None


def is_template(value: Any) -> bool:
    return isinstance(value, str) and len(split_template(value)) > 1


def valid_status(status: Any) -> bool:
    return is_integer(status) and LOWEST_STATUS <= status <= HIGHEST_STATUS


def header_problems(headers: dict) -> list[FieldError]:
    """Names must be tokens a flow may set; literal text in values one Latin-1 line."""
    problems = []
    for name, value in headers.items():
        if not valid_header_name(name):
            message = (
                f"Header name {name!r} is not a valid HTTP field name "
                "(letters, digits and !#$%&'*+-.^_`|~ only)."
            )
        elif unsafe_header(name):
            message = f"Header {name!r} cannot be set by a flow."
        elif not all(valid_header_value(text) for text in split_template(value)[::2]):
            message = (
                f"Header {name!r} must be one line of Latin-1 text without control "
                "characters."
            )
        else:
            continue
        problems.append(FieldError("data.headers", message))
    return problems


class ResponseNode(NodeKind):
    type = "response"
    label = "Response"
    description = "Sets the webhook's HTTP response."
    sets_response = True
    form_fields = (
        FormField(
            "data.status",
            "HTTP status",
            widget="number-or-template",
            help="200-599, or a template such as {{ input.status }} "
            "(checked when the flow runs).",
        ),
        FormField("data.headers", "Headers", widget="keyvalue"),
        FormField(
            "data.body",
            "Body",
            widget="json",
            help="JSON, or plain text. Templates allowed inside strings.",
        ),
    )
    default_data = {"status": 200, "headers": {}, "body": {"ok": True}}

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        status = data.get("status")
        if status is not None and not is_template(status) and not valid_status(status):
            problems.append(
                FieldError(
                    "data.status",
                    f"status must be a whole number from {LOWEST_STATUS} to "
                    f"{HIGHEST_STATUS}, or a {{{{ template }}}}.",
                )
            )
        problems += string_map(data, "headers")
        if not problems:
            problems += header_problems(data.get("headers") or {})
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        status = data.get("status")
        status = LOWEST_STATUS if status is None else _status(ctx.render(status))
        rendered = ctx.render(data.get("headers") or {})
        headers = {name: as_text(value).strip(OWS) for name, value in rendered.items()}
        for name, value in headers.items():
            if not valid_header_value(value):
                raise NodeError(
                    "invalid_header",
                    f"Header {name!r} must be one line of Latin-1 text without "
                    "control characters.",
                )
        return {
            "status": status,
            "headers": headers,
            "body": ctx.render(data.get("body")),
        }


def _status(value: Any) -> int:
    """The rendered status as a number; a string of digits ("404") is accepted."""
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    if not valid_status(value):
        raise NodeError(
            "invalid_status",
            f"The status is {as_text(value)[:100]!r}; it must be a whole number "
            f"from {LOWEST_STATUS} to {HIGHEST_STATUS}.",
        )
    return value
