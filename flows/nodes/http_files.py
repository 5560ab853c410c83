"""Run files in and out of the http_request node (docs/engine.md, "http_request").

In: a `body` that is a file's marker is sent as the file's bytes, and
`body_type: "multipart"` sends an object as multipart/form-data, each field
text or a file. Out: an answer body the client kept as bytes (`RawBody`:
`response_format: "file"`, or `auto` and a media type that is not text) is
stored as a run file and the output's body is its marker.

Every file is read through `ctx.files`, within the run's workspace: a marker
of another workspace's file is `file_missing`. The files sent are read
whole, so together they may hold at most RUN_FILE_MAX_BYTES.
"""

from __future__ import annotations

import base64
from typing import Any

from django.conf import settings

from core.net import multipart
from core.net.http_body import RawBody
from flows.nodes.base import NodeContext, NodeError
from flows.nodes.templates import as_text

BODY_TYPES = ("auto", "multipart")


def request_body(body: Any, body_type: str, headers: dict, ctx: NodeContext) -> Any:
    """The body to send for the node's rendered `body`; sets `headers`'
    Content-Type for a file (unless they name one) and for a form."""
    if body_type == "multipart":
        if not isinstance(body, dict):
            raise NodeError(
                "invalid_body",
                "A multipart body must be an object of fields, each text or a "
                f"file; it rendered to {type(body).__name__}.",
            )
        fields = _form_fields(body, ctx)
        encoded, content_type = multipart.encode(fields)
        for name in [name for name in headers if name.lower() == "content-type"]:
            del headers[name]
        headers["Content-Type"] = content_type
        return encoded
    if not _is_file(body, ctx):
        return body
    [part] = _read_files([body], ctx)
    if not any(name.lower() == "content-type" for name in headers):
        headers["Content-Type"] = part.content_type
    return part.data


def kept_answer(answer: dict, ctx: NodeContext) -> dict:
    """`answer` with a body kept as bytes stored as a run file (its marker
    in the body); base64 when there are no run files (outside a run)."""
    body = answer.get("body")
    if not isinstance(body, RawBody):
        return answer
    if ctx.files is None:
        encoded = base64.b64encode(body.data).decode("ascii")
        return {**answer, "body": encoded, "body_encoding": "base64"}
    marker = ctx.files.store(
        name=body.name, content_type=body.content_type or None, data=body.data
    )
    return {**answer, "body": marker}


def _form_fields(body: dict, ctx: NodeContext) -> list[tuple[str, str | RawBody]]:
    """(name, text or file) per field; a list repeats its field."""
    pairs = []
    for name, value in body.items():
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict | list) and not _is_file(item, ctx):
                raise NodeError(
                    "invalid_body",
                    f"Multipart field {name!r} must be text, a number, a boolean "
                    "or a file.",
                )
            pairs.append((name, item))
    files = iter(_read_files([item for _, item in pairs if _is_file(item, ctx)], ctx))
    return [
        (name, next(files) if _is_file(item, ctx) else as_text(item))
        for name, item in pairs
    ]


def _read_files(markers: list[dict], ctx: NodeContext) -> list[RawBody]:
    """Each file's bytes, name and type (from its row, never the marker)."""
    rows = [ctx.files.find(marker) for marker in markers]
    total = sum(row.size for row in rows)
    limit = settings.RUN_FILE_MAX_BYTES
    if total > limit:
        raise NodeError(
            "file_too_large",
            f"The files to send are {total} bytes together; at most {limit} "
            "(RUN_FILE_MAX_BYTES).",
        )
    return [
        RawBody(ctx.files.open_bytes(marker), row.content_type, row.name)
        for marker, row in zip(markers, rows, strict=True)
    ]


def _is_file(value: Any, ctx: NodeContext) -> bool:
    if ctx.files is None:
        if isinstance(value, dict) and "$file" in value:
            raise NodeError("file_missing", "Files need a run's files.")
        return False
    return ctx.files.is_file(value)
