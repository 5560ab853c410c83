"""`{{ expression }}` templates inside node data, filled in once per node run.

Expressions are JavaScript, evaluated in the sandbox with `input`, `prev`,
`results`, the workspace's `vars` and the `dates` helpers in scope, exactly
like code nodes. Two rules make templates safe and
predictable:

- **Evaluated once.** Only the strings written in the node's `data` are scanned
  for `{{ }}`; values coming out of an expression (say an `input.name` of
  `"{{7*7}}"`) are inserted as they are and never scanned again.
- **Types survive a whole template.** `"{{ input.count }}"` yields the number;
  a template embedded in text (`"n = {{ input.count }}"`) yields a string, with
  null and undefined as the empty string and objects as compact JSON.

Plain dotted paths (`input.address.city`, `results.fetch.body.items[0]`) are
looked up in Python without a sandbox round trip; anything else, or any path
whose JavaScript meaning differs from a dictionary lookup, goes to the sandbox.
"""

from __future__ import annotations

import json
import re
from typing import Any

import sandbox
from flows.nodes.errors import NodeError, sandbox_failure

DOTTED_PATH = re.compile(
    r"^(input|prev|results|secrets|run|item|index|vars)((?:\.[A-Za-z_$][\w$]*|\[\d+\])*)$",
    re.ASCII,
)
PATH_PART = re.compile(r"\.([A-Za-z_$][\w$]*)|\[(\d+)\]", re.ASCII)
# Property names every JavaScript object inherits; a dictionary lookup would
# disagree with JavaScript about them, so such paths go to the sandbox.
INHERITED = frozenset(
    [
        "constructor",
        "toString",
        "toLocaleString",
        "valueOf",
        "hasOwnProperty",
        "isPrototypeOf",
        "propertyIsEnumerable",
        "__proto__",
        "__defineGetter__",
        "__defineSetter__",
        "__lookupGetter__",
        "__lookupSetter__",
        "length",
    ]
)


class Undefined:
    """JavaScript's `undefined`: a missing property. Null in JSON output."""

    def __repr__(self):
        return "undefined"


UNDEFINED = Undefined()
NOT_SIMPLE = object()


def split_template(text: str) -> list[str]:
    """Alternating literal text and expressions: `[text, expr, text, ...]`.

    A plain scan with `str.find`, linear in the length even for hostile input
    (a regex would rescan the rest of the string after every unclosed `{{`).
    """
    parts, position = [], 0
    while (start := text.find("{{", position)) != -1:
        end = text.find("}}", start + 2)
        if end == -1:
            break
        parts += [text[position:start], text[start + 2 : end].strip()]
        position = end + 2
    parts.append(text[position:])
    return parts


def lookup_path(expression: str, variables: dict) -> Any:
    """The value of a plain dotted path, or NOT_SIMPLE when JavaScript is needed."""
    match = DOTTED_PATH.match(expression)
    if match is None or match.group(1) not in variables:
        return NOT_SIMPLE
    value = variables[match.group(1)]
    for name, index in PATH_PART.findall(match.group(2)):
        if name:
            if not isinstance(value, dict) or name in INHERITED:
                return NOT_SIMPLE
            value = value.get(name, UNDEFINED)
        else:
            if not isinstance(value, list):
                return NOT_SIMPLE
            position = int(index)
            value = value[position] if position < len(value) else UNDEFINED
    return value


def as_text(value: Any) -> str:
    """How a value reads inside a string, following JavaScript's own choices."""
    if value is None or value is UNDEFINED:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float):
        return repr(value)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def has_templates(value: Any) -> bool:
    if isinstance(value, str):
        return "{{" in value
    if isinstance(value, dict):
        return any(has_templates(item) for item in value.values())
    if isinstance(value, list):
        return any(has_templates(item) for item in value)
    return False


def render(value: Any, variables: dict, *, deadline: float | None = None) -> Any:
    """`value` with every template filled in; the input is never modified."""
    if not has_templates(value):
        return value
    pending: dict[str, Any] = {}
    _collect(value, variables, pending)
    to_evaluate = [expr for expr, result in pending.items() if result is NOT_SIMPLE]
    if to_evaluate:
        try:
            values = sandbox.evaluate(to_evaluate, variables, deadline=deadline)
        except sandbox.SandboxError as error:
            raise sandbox_failure(
                error, "template_error", "A {{ }} expression failed: "
            ) from error
        pending.update(zip(to_evaluate, values, strict=True))
    return _fill(value, pending)


def _collect(value: Any, variables: dict, pending: dict) -> None:
    if isinstance(value, str):
        for expression in split_template(value)[1::2]:
            if not expression:
                raise NodeError("template_error", "A {{ }} template is empty.")
            if expression not in pending:
                pending[expression] = lookup_path(expression, variables)
    elif isinstance(value, dict):
        for item in value.values():
            _collect(item, variables, pending)
    elif isinstance(value, list):
        for item in value:
            _collect(item, variables, pending)


def _fill(value: Any, values: dict) -> Any:
    if isinstance(value, str):
        if "{{" not in value:
            return value
        parts = split_template(value)
        if len(parts) == 3 and not parts[0].strip() and not parts[2].strip():
            result = values[parts[1]]  # a whole template keeps its type
            return None if result is UNDEFINED else result
        return "".join(
            as_text(values[part]) if index % 2 else part
            for index, part in enumerate(parts)
        )
    if isinstance(value, dict):
        return {key: _fill(item, values) for key, item in value.items()}
    if isinstance(value, list):
        return [_fill(item, values) for item in value]
    return value


def js_truthy(value: Any) -> bool:
    """JavaScript's truthiness for a JSON value (empty objects and lists are true)."""
    if value is None or value is UNDEFINED or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value != 0
    if isinstance(value, str):
        return value != ""
    return True
