"""Optimistic concurrency on a versioned resource: `ETag` out, `If-Match` in.

A flow's version is its entity tag (`"3"`); a save that names an older one is
refused with 412 (see docs/api.md)."""

from __future__ import annotations


def etag(version: int) -> str:
    return f'"{version}"'


def parse_if_match(header: str) -> int | None:
    """`"3"`, `W/"3"` or `3` → 3; `*` or nothing → None; anything else is stale."""
    value = header.strip()
    if not value or value == "*":
        return None
    value = value.removeprefix("W/").strip('"')
    return int(value) if value.isdigit() else -1
