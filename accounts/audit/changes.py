"""An audit event's `changes` as lines a person reads on the audit page:
`role: member → admin` instead of `{"from": "member", "to": "admin", ...}`.

Events record their changes in a few shapes (see the `record(...)` calls):
a `from`/`to` pair (a flow's version, a member's role), `<field>_before`
beside `<field>` (a run's status), a field holding its own `{"from", "to"}`,
or plain facts (`{"kind": "oauth2"}`). Each shape becomes a (field, old, new)
row; a plain fact has no old value.
"""

from __future__ import annotations

import json
from typing import NamedTuple


class Change(NamedTuple):
    field: str
    old: str | None
    new: str


def _text(value) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return ", ".join(value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return json.dumps(value, sort_keys=True)


def _field_name(key: str) -> str:
    return key.replace("_", " ")


def readable_changes(changes: dict, target_type: str = "") -> list[Change]:
    """The rows of `changes`, sorted by field, the `from → to` pair first
    (named after what changed: a flow's `version`, a member's `role`)."""
    rows: list[Change] = []
    rest = dict(changes or {})
    if "from" in rest and "to" in rest:
        pair_name = {"flow": "version", "membership": "role"}.get(target_type, "value")
        rows.append(Change(pair_name, _text(rest.pop("from")), _text(rest.pop("to"))))
    for key in sorted(rest):
        if key not in rest:
            continue  # already shown as the old value of its field
        value = rest.pop(key)
        if isinstance(value, dict) and set(value) == {"from", "to"}:
            rows.append(
                Change(_field_name(key), _text(value["from"]), _text(value["to"]))
            )
        elif f"{key}_before" in rest:
            old = rest.pop(f"{key}_before")
            rows.append(Change(_field_name(key), _text(old), _text(value)))
        else:
            rows.append(Change(_field_name(key), None, _text(value)))
    return rows
