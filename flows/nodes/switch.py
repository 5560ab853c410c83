"""The switch node: a multi-way branch, one output per case and `default`."""

from __future__ import annotations

import re
from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.templates import js_truthy

MAX_CASES = 20
HANDLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,29}$")
DEFAULT = "default"
# `error` is a node's error output; `default` is always the switch's own.
RESERVED = (DEFAULT, "error")
MODES = ("first", "all")


class SwitchNode(NodeKind):
    type = "switch"
    label = "Switch"
    description = "Passes its input on through the output of the case that matches."
    # The handles come from the cases (`handles`); this is what every switch has.
    output_handles = (DEFAULT,)
    handles_from = "cases"
    form_fields = (
        FormField(
            "data.cases",
            "Cases",
            widget="cases",
            help="Each case is an output name and a JavaScript expression over "
            "input, prev and results. Nothing matches: the default output.",
        ),
        FormField(
            "data.mode",
            "Mode",
            widget="select",
            options=MODES,
            help="first: only the first case that matches; all: every case "
            "that matches.",
        ),
    )
    default_data = {
        "cases": [
            {"handle": "large", "expression": "input.amount > 1000"},
            {"handle": "small", "expression": "input.amount <= 1000"},
        ],
        "mode": "first",
    }

    def handles(self, data: dict) -> tuple[str | None, ...]:
        cases = data.get("cases")
        named = [
            case["handle"]
            for case in (cases if isinstance(cases, list) else [])
            if isinstance(case, dict) and isinstance(case.get("handle"), str)
        ]
        return (*named, DEFAULT)

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = []
        if data.get("mode", "first") not in MODES:
            problems.append(FieldError("data.mode", 'Mode must be "first" or "all".'))
        cases = data.get("cases")
        if not isinstance(cases, list) or not 1 <= len(cases) <= MAX_CASES:
            problems.append(FieldError("data.cases", f"Give 1 to {MAX_CASES} cases."))
            return problems
        seen = set()
        for index, case in enumerate(cases):
            where = f"data.cases.{index}"
            if not isinstance(case, dict):
                problems.append(FieldError(where, "Each case is an object."))
                continue
            handle, expression = case.get("handle"), case.get("expression")
            if not isinstance(handle, str) or not HANDLE.match(handle):
                problems.append(
                    FieldError(
                        f"{where}.handle",
                        "An output name is a letter or _ then up to 29 letters, "
                        "digits or _.",
                    )
                )
            elif handle in RESERVED:
                problems.append(
                    FieldError(f"{where}.handle", f'"{handle}" is a reserved name.')
                )
            elif handle in seen:
                problems.append(
                    FieldError(f"{where}.handle", f'"{handle}" is used twice.')
                )
            seen.add(handle)
            if not isinstance(expression, str) or not expression.strip():
                problems.append(
                    FieldError(f"{where}.expression", "Give an expression.")
                )
            elif len(expression) > 10_000:
                problems.append(
                    FieldError(f"{where}.expression", "At most 10000 characters.")
                )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        cases = data["cases"]
        values = ctx.evaluate_all([case["expression"] for case in cases])
        matched = [
            case["handle"]
            for case, value in zip(cases, values, strict=True)
            if js_truthy(value)
        ]
        if data.get("mode", "first") == "first":
            matched = matched[:1]
        ctx.handle = ",".join(matched) or DEFAULT
        ctx.log(f"Output: {ctx.handle.replace(',', ', ')}")
        return ctx.prev
