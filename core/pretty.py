"""JSON for people to read, on the run page and in the admin."""

from __future__ import annotations

import json
from typing import Any


def pretty_json(value: Any) -> str | None:
    """`value` as indented JSON (not Python's repr); the template escapes it.

    Non-ASCII text stays readable ("café", not "caf\\u00e9"), but a lone
    surrogate, which no UTF-8 page can carry, is written as its JSON escape
    ("\\ud800"), so an odd stored string can never break the page.
    """
    if value is None:
        return None
    text = json.dumps(value, indent=2, ensure_ascii=False, default=str)
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
