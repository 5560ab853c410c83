"""The code node: the user's JavaScript, run in the sandbox (sandbox)."""

from __future__ import annotations

from typing import Any

import sandbox
from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.checks import text
from flows.nodes.errors import sandbox_failure

MAX_CODE_CHARS = 100_000


class CodeNode(NodeKind):
    type = "code"
    label = "Code"
    description = "Runs JavaScript; returns any JSON value (files too)."
    form_fields = (
        FormField(
            "data.code",
            "JavaScript",
            widget="code",
            help="Use input, prev and results; return any JSON value. "
            "console.log lines appear in the run's logs. A file: "
            "{$file: {name, type, text}} (or base64 instead of text).",
        ),
    )
    default_data = {
        "language": "javascript",
        "code": "// `input` is the flow's input, `prev` the upstream node's output.\n"
        "return { greeting: 'hi ' + input.name };",
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        if data.get("language", "javascript") != "javascript":
            problems.append(
                FieldError("data.language", 'The only language is "javascript".')
            )
        problems += text(data, "code", max_length=MAX_CODE_CHARS)
        if not problems and isinstance(data.get("code"), str):
            # Compiled in the sandbox, not run: a typo is caught at save.
            error = sandbox.syntax_error(data["code"])
            if error:
                where = error.replace("\n    at (", " (").replace("\n", " ")
                problems.append(FieldError("data.code", where))
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        try:
            result = sandbox.run_code(
                data["code"], ctx.variables, deadline=ctx.deadline
            )
        except sandbox.SandboxError as error:
            ctx.logs.extend(error.logs)
            raise sandbox_failure(error) from error
        ctx.logs.extend(result.logs)
        ctx.logs_truncated = result.logs_truncated
        if ctx.files is None:  # tested on its own, outside a run
            return result.value
        # Files it made are stored now; its output holds their markers.
        return ctx.files.keep_made(result.value, text=result.text)
