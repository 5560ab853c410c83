"""The http_request node's `pagination`: every page's items in one list.

`{mode, items, max_pages}` plus, by mode:

- `link`: the next page is the `Link` header's rel="next" target (RFC 8288),
  followed only on the first request's origin (the node's headers and
  credential go with it);
- `cursor`: `next` is the dotted path of the next cursor in each answer's
  JSON, sent as query parameter `param`; no cursor (or the same one again)
  ends the paging;
- `page`: query parameter `param` counts up from `start` (default 1) until a
  page has no items.

`items` is the dotted path of each page's list in its JSON (absent: the body
is the list). The output is `{items, pages, more}`: `pages` counts the answers
read (for `page` the empty one that ended it too), `more` is true when
`max_pages` (default 100) stopped the paging while another page was announced.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, unquote_plus, urlsplit, urlunsplit

from core.net.http_headers import next_link
from flows.nodes.base import NodeError

MODES = ("link", "cursor", "page")
DEFAULT_MAX_PAGES = 100
MAX_PAGES_LIMIT = 1000
MISSING = object()


def fetch_pages(
    fetch: Callable[[str, int], dict],
    url: str,
    pagination: dict,
    *,
    max_bytes: int,
) -> dict:
    """Fetch page after page with `fetch(url, page_number)` and gather their
    items (`fetch` signs each request with the node's credential);
    `max_bytes` bounds the items gathered (the node's output cap), checked
    page by page so a long listing stops early."""
    mode = pagination["mode"]
    max_pages = pagination.get("max_pages") or DEFAULT_MAX_PAGES
    number = pagination.get("start", 1)
    page_url = with_param(url, pagination["param"], number) if mode == "page" else url
    items: list = []
    size = pages = 0
    cursor = None
    while True:
        answer = fetch(page_url, pages + 1)
        pages += 1
        found = page_items(answer, pagination.get("items") or "", pages)
        size += len(json.dumps(found, ensure_ascii=False, separators=(",", ":")))
        if size > max_bytes:
            raise NodeError(
                "output_too_large",
                f"The items of {pages} pages are over {max_bytes} bytes, the "
                "node's output limit; lower max_pages or ask for fewer items.",
            )
        items.extend(found)
        if mode == "link":
            following = _next_link(answer, page_url, url)
        elif mode == "cursor":
            following, cursor = _next_cursor(answer, pagination, url, cursor)
        else:
            number += 1
            following = with_param(url, pagination["param"], number) if found else None
        if following is None:
            return {"items": items, "pages": pages, "more": False}
        if pages >= max_pages:
            return {"items": items, "pages": pages, "more": True}
        page_url = following


def page_items(answer: dict, path: str, number: int) -> list:
    """The list at `path` in the page's JSON body; `invalid_items` otherwise."""
    found = value_at(answer.get("body"), path)
    if not isinstance(found, list):
        where = f"items path {path!r}" if path else "the body itself (no items path)"
        what = "nothing" if found is MISSING else type(found).__name__
        raise NodeError(
            "invalid_items",
            f"Page {number}: {where} is {what}, not a list. Pages must be JSON "
            '(set response_format to "json" if the server labels them otherwise).',
        )
    return found


def value_at(value: Any, path: str) -> Any:
    """The value at a dotted path (`data.items`, `results.0.rows`), MISSING
    when the path leads nowhere; the empty path is the value itself."""
    for part in path.split(".") if path else ():
        if isinstance(value, dict):
            value = value.get(part, MISSING)
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def with_param(url: str, name: str, value: Any) -> str:
    """`url` with query parameter `name` set to `value`, replacing any there;
    the other parameters are kept byte for byte."""
    return with_params(url, [(name, value)])


def with_params(url: str, params: list[tuple[str, Any]]) -> str:
    parts = urlsplit(url)
    names = {name for name, _ in params}
    kept = [
        piece
        for piece in parts.query.split("&")
        if piece and unquote_plus(piece.split("=", 1)[0]) not in names
    ]
    added = [
        f"{quote(name, safe='')}={quote(str(value), safe='')}" for name, value in params
    ]
    return urlunsplit(parts._replace(query="&".join(kept + added)))


def _next_link(answer: dict, page_url: str, first_url: str) -> str | None:
    target = next_link(answer["headers"].get("link"), page_url)
    if target is None:
        return None
    if _origin(target) != _origin(first_url):
        raise NodeError(
            "pagination_error",
            f"The next page's link leads to another origin ({_origin_text(target)}); "
            "the node follows links only on the first request's origin, where "
            "its headers and credential belong.",
        )
    return target


def _next_cursor(answer: dict, pagination: dict, url: str, previous):
    cursor = value_at(answer.get("body"), pagination["next"])
    if cursor is MISSING or cursor is None or cursor == "" or cursor == previous:
        return None, previous
    if isinstance(cursor, bool) or not isinstance(cursor, str | int | float):
        raise NodeError(
            "pagination_error",
            f"The next cursor at {pagination['next']!r} is a "
            f"{type(cursor).__name__}, not text or a number.",
        )
    return with_param(url, pagination["param"], cursor), cursor


def _origin(url: str) -> tuple:
    parts = urlsplit(url)
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, (parts.hostname or "").rstrip("."), parts.port or default


def _origin_text(url: str) -> str:
    scheme, host, port = _origin(url)
    return f"{scheme}://{host}:{port}"
