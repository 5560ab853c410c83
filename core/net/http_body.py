"""An http_request response body as the node outputs it: JSON, text, base64,
or raw bytes for a file.

`response_format` says which: `auto` parses JSON when the content type says
JSON (a body that does not parse stays text), keeps text as text and hands a
body of any other media type back as `RawBody` (the node stores it as a run
file); `json` always parses (an empty body is null; anything else that does
not parse is a `BodyError`), `text` never does, `file` is always a `RawBody`.

The response's `charset` picks the codec, but only from `TEXT_CODECS`
(core/charsets.py): Python's codec registry also holds codecs that are not
character sets at all and cost far more than a pass over the bytes (`punycode`
took 22-25 s of CPU on 1 MiB, past any `timeout_ms`; `unicode_escape`, `rot13`,
`hex`, `base64` change meaning). Every codec listed decodes in time linear in
the body, which `HTTP_NODE_MAX_RESPONSE_BYTES` bounds. A body labelled with any
other charset is not decoded: it is output as base64 with `body_encoding:
"base64"`, so nothing is lost and the flow can tell.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from email.message import Message
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import unquote, urlsplit

from core.charsets import text_codec
from core.storable import storable_text

RESPONSE_FORMATS = ("auto", "json", "text", "file")
# Media types read as text by `auto`, besides text/*, JSON and XML (+json,
# +xml). A body without a content type is text too, as it always was.
TEXT_MEDIA_TYPES = frozenset(
    {
        "application/json",
        "application/xml",
        "application/javascript",
        "application/ecmascript",
        "application/x-www-form-urlencoded",
        "application/yaml",
        "application/x-yaml",
        "application/x-ndjson",
        "application/graphql",
        "application/sql",
        "application/csv",
    }
)


@dataclass(frozen=True)
class RawBody:
    """A body kept as bytes, for the caller to store as a file: its bytes,
    its Content-Type and its name (Content-Disposition's filename, else the
    URL's last path segment, else "download")."""

    data: bytes
    content_type: str
    name: str


class BodyError(Exception):
    """The body cannot be output: `invalid_json` (format `json` and the body
    is not JSON) or `invalid_output` (JSON nested past Python's recursion limit)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def decode_body(
    raw: bytes,
    content_type: str,
    response_format: str = "auto",
    *,
    disposition: str = "",
    url: str = "",
) -> dict[str, Any]:
    """`{"body": ...}` for the node's output, plus `"body_encoding": "base64"`
    when the charset named is not a text codec of `TEXT_CODECS`; the body is
    a `RawBody` (named from `disposition` or `url`) for a file."""
    if response_format == "file" or (
        response_format == "auto" and not is_text_type(content_type)
    ):
        return {"body": RawBody(raw, content_type, file_name(disposition, url))}
    codec = _codec(content_type)
    if codec is None:
        if response_format == "json":
            raise BodyError(
                "invalid_json",
                f"The response is labelled {content_type!r}, a character set the "
                "node does not decode, so it cannot be read as JSON.",
            )
        return {
            "body": base64.b64encode(raw).decode("ascii"),
            "body_encoding": "base64",
        }
    # A binary body's NUL bytes would make the run unstorable (core/storable.py).
    text_body = storable_text(raw.decode(codec, errors="replace"))
    if response_format == "json":
        return {"body": _parsed(text_body) if text_body.strip() else None}
    media_type = content_type.split(";")[0].strip().lower()
    if response_format == "auto" and (
        media_type == "application/json" or media_type.endswith("+json")
    ):
        try:
            return {"body": _parsed(text_body)}
        except BodyError as error:
            if error.code != "invalid_json":
                raise
    return {"body": text_body}


def is_text_type(content_type: str) -> bool:
    """Whether `auto` reads a body of `content_type` as text (or JSON)."""
    media_type = content_type.split(";")[0].strip().lower()
    return (
        not media_type
        or media_type.startswith("text/")
        or media_type in TEXT_MEDIA_TYPES
        or media_type.endswith(("+json", "+xml"))
    )


def file_name(disposition: str, url: str) -> str:
    """The name of a downloaded file: Content-Disposition's `filename`
    (`filename*` first, RFC 6266), else the URL's last path segment, else
    "download"; only the last part of a path, never a folder."""
    name = ""
    if disposition:
        header = Message()
        header["Content-Disposition"] = disposition
        name = header.get_filename() or ""
    if not name.strip():
        name = unquote(urlsplit(url).path.rstrip("/").rpartition("/")[2])
    name = PurePosixPath(name.replace("\\", "/")).name.strip()
    return name if name not in ("", ".", "..") else "download"


def _parsed(text_body: str) -> Any:
    try:
        return json.loads(text_body)
    except RecursionError:
        raise BodyError(
            "invalid_output", "The response's JSON is nested too deep."
        ) from None
    except ValueError as error:
        raise BodyError(
            "invalid_json", f"The response is not valid JSON ({error})."
        ) from None


def _codec(content_type: str) -> str | None:
    """The codec to decode with: UTF-8 when no charset is named, None when the
    one named is unknown or not a text codec."""
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.strip().lower() == "charset" and value.strip().strip('"'):
            return text_codec(value.strip().strip('"'))
    return "utf-8"
