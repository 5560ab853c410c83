"""Save-time checks of the http_request node's answer settings:
`on_http_error`, `response_format`, `query` and `pagination`."""

from __future__ import annotations

from core.net.http_body import RESPONSE_FORMATS
from flows.nodes.base import FieldError
from flows.nodes.checks import is_integer
from flows.nodes.http_paging import MAX_PAGES_LIMIT, MODES

ON_HTTP_ERROR = ("fail", "output")
MAX_QUERY_PARAMS = 100
PAGINATION_KEYS = {
    "link": {"mode", "items", "max_pages"},
    "cursor": {"mode", "items", "max_pages", "next", "param"},
    "page": {"mode", "items", "max_pages", "param", "start"},
}


def answer_settings(data: dict) -> list[FieldError]:
    problems = []
    if data.get("on_http_error", "fail") not in ON_HTTP_ERROR:
        problems.append(
            FieldError("data.on_http_error", 'On HTTP error is "fail" or "output".')
        )
    if data.get("response_format", "auto") not in RESPONSE_FORMATS:
        problems.append(
            FieldError(
                "data.response_format",
                'Response format is "auto", "json", "text" or "file".',
            )
        )
    if data.get("response_format") == "file" and data.get("pagination"):
        problems.append(
            FieldError(
                "data.pagination",
                "Pages are lists of items: pagination needs a response format "
                'other than "file".',
            )
        )
    return problems + query(data.get("query")) + pagination(data.get("pagination"))


def query(pairs) -> list[FieldError]:
    """`query`: null, or a list of `{name, value}` (a value is text, maybe a
    template, a number, a boolean or null for empty); a name may repeat."""
    if pairs is None:
        return []
    problem = [
        FieldError(
            "data.query",
            f"Query must be a list of up to {MAX_QUERY_PARAMS} "
            '{"name": ..., "value": ...} pairs, each name non-empty text.',
        )
    ]
    if not isinstance(pairs, list) or len(pairs) > MAX_QUERY_PARAMS:
        return problem
    for pair in pairs:
        if (
            not isinstance(pair, dict)
            or set(pair) - {"name", "value"}
            or not isinstance(pair.get("name"), str)
            or not pair["name"].strip()
            or not isinstance(pair.get("value"), str | int | float | bool | None)
        ):
            return problem
    return []


def pagination(setting) -> list[FieldError]:
    """`pagination`: null for one request, or `{mode, ...}` as
    flows/nodes/http_paging.py describes."""
    if setting is None:
        return []
    if not isinstance(setting, dict) or setting.get("mode") not in MODES:
        return [
            FieldError(
                "data.pagination",
                'Pagination is null or an object whose mode is "link", "cursor" '
                'or "page", like {"mode": "link", "items": "data"}.',
            )
        ]
    mode = setting["mode"]
    problems = []
    unknown = sorted(set(setting) - PAGINATION_KEYS[mode])
    if unknown:
        problems.append(
            FieldError(
                "data.pagination",
                f"Mode {mode} takes no {', '.join(unknown)}; it takes "
                f"{', '.join(sorted(PAGINATION_KEYS[mode]))}.",
            )
        )
    for key, required in (("param", mode != "link"), ("next", mode == "cursor")):
        value = setting.get(key)
        if required and (not isinstance(value, str) or not value.strip()):
            what = "query parameter" if key == "param" else "dotted path in the answer"
            problems.append(
                FieldError(f"data.pagination.{key}", f"Mode {mode} needs the {what}.")
            )
    if not isinstance(setting.get("items", ""), str):
        problems.append(
            FieldError(
                "data.pagination.items",
                "Items is the dotted path of each page's list (like data.items).",
            )
        )
    max_pages = setting.get("max_pages")
    if max_pages is not None and (
        not is_integer(max_pages) or not 1 <= max_pages <= MAX_PAGES_LIMIT
    ):
        problems.append(
            FieldError(
                "data.pagination.max_pages",
                f"max_pages must be a whole number from 1 to {MAX_PAGES_LIMIT}.",
            )
        )
    start = setting.get("start", 1)
    if not is_integer(start) or start < 0:
        problems.append(
            FieldError(
                "data.pagination.start", "start must be a whole number, 0 or more."
            )
        )
    return problems
