"""The stop node: ends the run on purpose, as succeeded or failed."""

from __future__ import annotations

import re
from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.checks import text
from flows.nodes.errors import StopRun

OUTCOMES = ("succeed", "fail")
CODE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
MAX_MESSAGE_CHARS = 2_000
# Codes the engine gives runs: a user's stop must not pass for one of them.
RESERVED_CODES = frozenset(
    {"run_timeout", "cancelled", "interrupted", "internal_error", "invalid_flow"}
)


class StopNode(NodeKind):
    type = "stop"
    label = "Stop"
    description = "Ends the run here, as succeeded or as failed with your own error."
    form_fields = (
        FormField("data.outcome", "Outcome", widget="select", options=OUTCOMES),
        FormField(
            "data.code",
            "Error code",
            mono=True,
            help="For fail: lower-case letters, digits and _, as in order_rejected.",
        ),
        FormField(
            "data.message",
            "Message",
            widget="textarea",
            help="A template: Order {{ input.id }} was rejected.",
        ),
    )
    default_data = {"outcome": "fail", "code": "stopped", "message": "Stopped."}

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        if data.get("outcome") not in OUTCOMES:
            problems.append(
                FieldError("data.outcome", 'Outcome must be "succeed" or "fail".')
            )
        code = data.get("code", "stopped")
        if not isinstance(code, str) or not CODE.match(code):
            problems.append(
                FieldError(
                    "data.code",
                    "A code is a lower-case letter, then up to 63 lower-case "
                    "letters, digits or _.",
                )
            )
        elif code in RESERVED_CODES:
            problems.append(
                FieldError("data.code", f'"{code}" is one of Weir\'s own codes.')
            )
        problems += text(data, "message", required=False, max_length=MAX_MESSAGE_CHARS)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        message = ctx.render(data.get("message") or "Stopped.")
        if not isinstance(message, str):
            message = str(message)
        if len(message) > MAX_MESSAGE_CHARS:
            message = message[:MAX_MESSAGE_CHARS]
        outcome, code = data["outcome"], data.get("code", "stopped")
        output = {"outcome": outcome, "code": code, "message": message}
        raise StopRun(outcome, code, message, output)
