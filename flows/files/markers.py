"""The `$file` marker: how a file appears in a run's JSON data.

A stored file is `{"$file": {"id", "name", "type", "size", "sha256"}}` and
nothing else in its object; the id is what counts (the other members are
for people and templates: `{{ input.photo.$file.name }}`). A file a code
node makes is `{"$file": {"name", "type", "base64"}}` or with `text`
instead of `base64`: the engine stores it and puts its marker in its place
(flows/files/run_files.py). Pure functions of JSON values, no database.
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Iterator
from typing import Any

from flows.files.errors import FileRefused

KEY = "$file"


def is_file(value: Any) -> bool:
    """Whether `value` is a stored file's marker (an id that is a UUID)."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    inner = value.get(KEY)
    return isinstance(inner, dict) and _is_uuid(inner.get("id"))


def file_id(marker: Any) -> uuid.UUID:
    """The id a marker names; FileRefused for anything that is not a marker."""
    if not is_file(marker):
        raise FileRefused("not_a_file", 'The value is not a file ({"$file": ...}).')
    return uuid.UUID(marker[KEY]["id"])


def files_in(value: Any) -> list[dict]:
    """Every marker inside a JSON value, depth first, each file once."""
    found, seen = [], set()
    for marker in _walk(value):
        key = marker[KEY]["id"]
        if key not in seen:
            seen.add(key)
            found.append(marker)
    return found


def as_file_list(value: Any, what: str) -> list[dict]:
    """A marker or a list of markers as a list (None and "" are none);
    FileRefused naming `what` for anything else."""
    if value is None or value == "" or value == []:
        return []
    items = value if isinstance(value, list) else [value]
    for item in items:
        if not is_file(item):
            raise FileRefused(
                "not_a_file", f"{what} must be a file or a list of files."
            )
    return items


def is_new_file(value: Any) -> bool:
    """Whether `value` is a file to be made: `{"$file": {name, type, base64
    or text}}` (no id yet)."""
    if not isinstance(value, dict) or len(value) != 1:
        return False
    inner = value.get(KEY)
    return (
        isinstance(inner, dict)
        and "id" not in inner
        and ("base64" in inner or "text" in inner)
    )


def new_file_parts(value: dict) -> tuple[str, str, bytes]:
    """(name, type, bytes) of a file to be made; FileRefused if malformed."""
    inner = value[KEY]
    name, kind = inner.get("name", "file"), inner.get("type")
    if not isinstance(name, str):
        raise FileRefused("invalid_file", "A file's name must be text.")
    if kind is not None and not isinstance(kind, str):
        raise FileRefused("invalid_file", "A file's type must be text.")
    if "base64" in inner:
        encoded = inner["base64"]
        if not isinstance(encoded, str):
            raise FileRefused("invalid_file", "A file's base64 must be text.")
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise FileRefused(
                "invalid_file", f"The base64 of file {name!r} is not valid base64."
            ) from None
        return name, kind or "application/octet-stream", data
    if not isinstance(inner["text"], str):
        raise FileRefused("invalid_file", "A file's text must be text.")
    return name, kind or "text/plain; charset=utf-8", inner["text"].encode()


def may_name_files(text: str) -> bool:
    """Whether the JSON text of a value may hold a `$file` object: its key
    written out, or a `\\u` escape, which could spell it."""
    return KEY in text or "\\u" in text


def replace_new_files(value: Any, make) -> Any:
    """`value` with every file to be made replaced by `make(value)` (its
    marker); the same object when it holds none."""
    if is_new_file(value):
        return make(value)
    if isinstance(value, dict):
        changed = {key: replace_new_files(item, make) for key, item in value.items()}
        same = all(changed[key] is value[key] for key in value)
        return value if same else changed
    if isinstance(value, list):
        changed = [replace_new_files(item, make) for item in value]
        same = all(new is old for new, old in zip(changed, value, strict=True))
        return value if same else changed
    return value


def _walk(value: Any) -> Iterator[dict]:
    stack = [value]
    while stack:
        item = stack.pop()
        if is_file(item):
            yield item
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))


def _is_uuid(text: Any) -> bool:
    if not isinstance(text, str):
        return False
    try:
        uuid.UUID(text)
    except ValueError:
        return False
    return True
