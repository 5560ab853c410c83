"""Small helpers the node kinds use to check their `data` at save time."""

from __future__ import annotations

from flows.nodes.base import FieldError


def is_integer(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def text(data: dict, key: str, *, required: bool = True, max_length: int = 10_000):
    """Problems with `data[key]` as a string (non-blank when required)."""
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, str) or (required and not value.strip()):
        return [FieldError(f"data.{key}", f"{key.title()} must be non-empty text.")]
    if len(value) > max_length:
        return [
            FieldError(
                f"data.{key}", f"{key.title()} is at most {max_length} characters."
            )
        ]
    return []


def integer_between(
    data: dict, key: str, low: int, high: int, *, required: bool = True
) -> list[FieldError]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not is_integer(value) or not low <= value <= high:
        return [
            FieldError(
                f"data.{key}", f"{key} must be a whole number from {low} to {high}."
            )
        ]
    return []


def string_map(data: dict, key: str) -> list[FieldError]:
    """`data[key]`, when present, must map names to strings (headers and the like)."""
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, dict) or not all(
        isinstance(item, str) for item in value.values()
    ):
        return [FieldError(f"data.{key}", f"{key.title()} must map names to text.")]
    return []


def credential_id(data: dict) -> list[FieldError]:
    """`data.credential_id`: a credential's id, or null for none (which
    credential it names, and its kind, are checked at save and run time)."""
    value = data.get("credential_id")
    if value is not None and not isinstance(value, str):
        return [FieldError("data.credential_id", "Must be a credential's id or null.")]
    return []
