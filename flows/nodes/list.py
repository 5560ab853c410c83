"""The list node: array work on one value, without a loop or a code node.

`source` is a template giving an array; `operation` says what to do with it.
filter and map take a JavaScript expression over `item` and `index` (and
`input`, `prev`, `results`), run for the whole list in one sandbox call;
sort, limit, unique, group, chunk and flatten are done here, in Python.
The output is always `{items, count}`.
"""

from __future__ import annotations

import json
from typing import Any

import sandbox
from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.checks import integer_between, text
from flows.nodes.errors import NodeError, sandbox_failure

OPERATIONS = (
    "filter",
    "map",
    "sort",
    "limit",
    "unique",
    "group",
    "chunk",
    "flatten",
)
NEEDS_EXPRESSION = ("filter", "map")
NEEDS_PATH = ("group",)
MAX_COUNT = 1_000_000
# The user's expression becomes one arrow function's body; `prev` carries the
# array and the upstream output so the expression sees `prev` as it should.
CALL = {
    "filter": "return $items.filter((item, index) => ({expression}));",
    "map": "return $items.map((item, index) => ({expression}));",
}
PRELUDE = "const $items = prev.items; prev = prev.prev;\n"


class ListNode(NodeKind):
    type = "list"
    label = "List"
    description = (
        "Filters, maps, sorts, groups or chunks an array; gives {items, count}."
    )
    form_fields = (
        FormField(
            "data.source",
            "Array",
            mono=True,
            help="A template giving an array: {{ input.orders }}.",
        ),
        FormField("data.operation", "Operation", widget="select", options=OPERATIONS),
        FormField(
            "data.expression",
            "Expression",
            mono=True,
            help="filter and map: JavaScript over item and index, as in "
            "item.total > 100 or ({id: item.id}).",
        ),
        FormField(
            "data.path",
            "Field",
            mono=True,
            help="sort, unique and group: a dotted path into each item, as in "
            "customer.id; empty means the item itself.",
        ),
        FormField(
            "data.order", "Order", widget="select", options=("ascending", "descending")
        ),
        FormField(
            "data.count",
            "Count",
            widget="number",
            min=1,
            help="limit: keep this many; chunk: items per chunk.",
        ),
    )
    default_data = {
        "source": "{{ input.items }}",
        "operation": "filter",
        "expression": "item.total > 100",
        "path": "",
        "order": "ascending",
        "count": 10,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = text(data, "source", max_length=10_000)
        operation = data.get("operation")
        if operation not in OPERATIONS:
            return [
                *problems,
                FieldError(
                    "data.operation", f"Operation is one of {', '.join(OPERATIONS)}."
                ),
            ]
        if operation in NEEDS_EXPRESSION:
            found = text(data, "expression", max_length=10_000)
            if not found:
                code = PRELUDE + CALL[operation].format(expression=data["expression"])
                error = sandbox.syntax_error(code)
                if error:
                    found = [FieldError("data.expression", error.split("\n")[0])]
            problems += found
        if operation in NEEDS_PATH or data.get("path") is not None:
            problems += text(
                data, "path", required=operation in NEEDS_PATH, max_length=500
            )
        if data.get("order", "ascending") not in ("ascending", "descending"):
            problems.append(
                FieldError("data.order", 'Order is "ascending" or "descending".')
            )
        if operation in ("limit", "chunk"):
            problems += integer_between(data, "count", 1, MAX_COUNT)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        items = ctx.render(data["source"])
        if not isinstance(items, list):
            raise NodeError(
                "invalid_items",
                f"The array is {type_name(items)}, not an array.",
            )
        operation = data["operation"]
        if operation in NEEDS_EXPRESSION:
            items = in_sandbox(operation, data["expression"], items, ctx)
        else:
            items = OPERATE[operation](items, data)
        return {"items": items, "count": len(items)}


def in_sandbox(operation: str, expression: str, items: list, ctx: NodeContext):
    code = PRELUDE + CALL[operation].format(expression=expression)
    variables = {**ctx.variables, "prev": {"items": items, "prev": ctx.prev}}
    try:
        result = sandbox.run_code(code, variables, deadline=ctx.deadline)
    except sandbox.SandboxError as error:
        raise sandbox_failure(error, "expression_error") from error
    return result.value  # JSON: map's undefined items come back as null


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "text"
    return "an object"


def at_path(item: Any, path: str | None) -> Any:
    """The value at a dotted `path` in `item` (None where it is missing)."""
    if not path:
        return item
    for key in path.split("."):
        if isinstance(item, dict):
            item = item.get(key)
        elif isinstance(item, list) and key.isdigit() and int(key) < len(item):
            item = item[int(key)]
        else:
            return None
    return item


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def sort_key(value: Any) -> tuple:
    """Numbers, then text, then booleans, then objects and arrays: a mixed
    list sorts the same way every time."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, int | float):
        return (0, value)
    if isinstance(value, str):
        return (1, value)
    return (3, canonical(value))


def sort_items(items: list, data: dict) -> list:
    path = data.get("path")
    present = [item for item in items if at_path(item, path) is not None]
    missing = [item for item in items if at_path(item, path) is None]
    descending = data.get("order") == "descending"
    ordered = sorted(
        present, key=lambda item: sort_key(at_path(item, path)), reverse=descending
    )
    return ordered + missing  # nulls last, either way


def unique_items(items: list, data: dict) -> list:
    seen, kept = set(), []
    for item in items:
        key = canonical(at_path(item, data.get("path")))
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def group_items(items: list, data: dict) -> list:
    groups: dict[str, dict] = {}
    for item in items:
        key = at_path(item, data["path"])
        group = groups.setdefault(canonical(key), {"key": key, "items": [], "count": 0})
        group["items"].append(item)
        group["count"] += 1
    return list(groups.values())


def chunk_items(items: list, data: dict) -> list:
    size = data["count"]
    return [items[start : start + size] for start in range(0, len(items), size)]


def flatten_items(items: list, data: dict) -> list:
    flat = []
    for item in items:
        if isinstance(item, list):
            flat.extend(item)
        else:
            flat.append(item)
    return flat


OPERATE = {
    "sort": sort_items,
    "limit": lambda items, data: items[: data["count"]],
    "unique": unique_items,
    "group": group_items,
    "chunk": chunk_items,
    "flatten": flatten_items,
}
