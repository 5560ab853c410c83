"""Which JSON values Weir can store and send back: one check for every way in.

A value is refused when it nests deeper than `MAX_NESTING`, holds a string
(a key or a value) with a NUL character or an unpaired surrogate, or holds a
number that is not finite (`1e400` parses as infinity):

- PostgreSQL's jsonb cannot hold U+0000, nor the escape of a lone surrogate;
- no UTF-8 encoder can write a lone surrogate, so a stored one breaks every page
  and API answer that shows it (and SQLite would happily store it);
- JSON has no infinity or NaN: PostgreSQL and SQLite both refuse to store one;
- deep nesting walks Python's recursion limit in the JSON encoder, the ORM and
  the sandbox, and a RecursionError there is a 500 or a run stuck `running`.

The webhook body, a run's input (`run_flow` and the run endpoint), every node's
output (the engine) and a flow's fields (the flow API) all go through
`check_storable`, so the rule and its message live here only.
"""

from __future__ import annotations

import math
import re
from typing import Any

# Real payloads nest a handful of levels; 100 is Rails' default `max_nesting`.
# It keeps the engine, the sandbox and the encoders far from the recursion limit.
MAX_NESTING = 100

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
_SURROGATE = re.compile("[\ud800-\udfff]")
# How a non-finite number shows in JSON text: a three-digit exponent (past
# 1e308 a float is infinity) as parsed, or Python's own spelling as encoded.
_NON_FINITE = re.compile(r"\d[eE][+-]?\d{3}|Infinity|NaN")


class Unstorable(ValueError):
    """The value cannot be stored; the message says why, in the user's words."""


def check_storable(
    value: Any, *, text: str | None = None, what: str = "The value"
) -> None:
    """Raise `Unstorable` unless `value` can be stored and sent as JSON.

    `text`, the JSON text `value` was parsed from or encoded to (with
    `ensure_ascii=False`), lets the check skip its walk when C-speed scans of the
    text show nothing to find: fewer brackets than the limit, no `\\u` escape, no
    raw NUL or surrogate. `what` starts the message ("The JSON body", "Node
    output").
    """
    if text is not None and not _may_be_unstorable(text):
        return
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children, strings = item.values(), item.keys()
        elif isinstance(item, list):
            children, strings = item, ()
        else:
            if isinstance(item, str) and _UNSTORABLE.search(item):
                raise Unstorable(_bad_text(what))
            if isinstance(item, float) and not math.isfinite(item):
                raise Unstorable(
                    f"{what} contains a number too large to store "
                    "(it reads as infinity or NaN)."
                )
            continue
        if depth > MAX_NESTING:
            raise Unstorable(f"{what} is nested more than {MAX_NESTING} levels deep.")
        for key in strings:
            if isinstance(key, str) and _UNSTORABLE.search(key):
                raise Unstorable(_bad_text(what))
        stack.extend((child, depth + 1) for child in children)


def storable_text(text: str) -> str:
    """`text` with each NUL or unpaired surrogate replaced by U+FFFD.

    For what Weir writes itself around user data (log lines, error messages,
    a decoded HTTP body), where refusing would lose more than it protects.
    """
    return _UNSTORABLE.sub("\ufffd", text)


def storable_value(value: Any, *, _depth: int = 1) -> Any:
    """`value` (JSON) made storable instead of refused, for values Weir must keep
    whatever they hold (an LLM's tool-call arguments): every string and key
    through `storable_text`, infinity and NaN as null, and anything nested past
    `MAX_NESTING` as null."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, list | dict) and _depth > MAX_NESTING:
        return None
    if isinstance(value, list):
        return [storable_value(item, _depth=_depth + 1) for item in value]
    if isinstance(value, dict):
        return {
            storable_text(str(key)): storable_value(item, _depth=_depth + 1)
            for key, item in value.items()
        }
    return value


def _may_be_unstorable(text: str) -> bool:
    return (
        text.count("[") + text.count("{") > MAX_NESTING
        or "\\u" in text
        or "\x00" in text
        or _SURROGATE.search(text) is not None
        or _NON_FINITE.search(text) is not None
    )


def _bad_text(what: str) -> str:
    return (
        f"{what} contains a NUL character (\\u0000) or an unpaired surrogate "
        "(\\ud800-\\udfff), which cannot be stored."
    )


def check_storable_body(body: Any) -> None:
    """A request body's own check (core.http.body.object_body): the run
    stores it as its input, so it must be storable."""
    check_storable(body, what="The JSON body")
