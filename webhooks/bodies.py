"""A webhook request's body as the flow's `input`, whatever its sender sends.

- `application/json` (and `+json` types): any JSON value, checked as before
  (webhooks/limits.py: depth, size, numbers);
- `application/x-www-form-urlencoded` (HTML forms, Slack's slash commands,
  Twilio): an object, a repeated key a list of its values;
- `multipart/form-data`: its fields as above, and each file a run file in
  its field (webhooks/multipart.py);
- `text/*`: the text, a string;
- no body at all (a GET, a ping), unless it said it was JSON: the query
  string's object;
- anything else (an image, a PDF, `application/octet-stream`): a run file.
Texts are UTF-8 unless they name another charset Python knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from django.http import HttpRequest

from core.charsets import text_codec
from core.http.errors import UnsupportedMediaType, ValidationFailed
from core.storable import Unstorable, check_storable
from webhooks import limits, multipart
from webhooks.multipart import Upload

FORM = "application/x-www-form-urlencoded"
MULTIPART = "multipart/form-data"
# How many fields a form may have: the same bound Django puts on its own forms.
MAX_FIELDS = 1000
# A body of no declared type is read as this.
DEFAULT_TYPE = "application/octet-stream"


@dataclass
class Parsed:
    """The input without its files; the files, each to be stored as a run
    file; `whole`: the body itself is the one file, and the input its marker."""

    value: Any
    uploads: list[Upload] = field(default_factory=list)
    whole: bool = False

    def with_files(self, markers: list[dict]) -> Any:
        """The input, each file's marker in its place."""
        if self.whole:
            return markers[0]
        value = self.value
        for upload, marker in zip(self.uploads, markers, strict=True):
            as_object([(upload.field, marker)], into=value)
        return value


def query_object(request: HttpRequest) -> dict:
    """The query string as an object; a repeated name a list of its values."""
    return as_object(form_pairs(request.META.get("QUERY_STRING", "")))


def form_pairs(text: str) -> list[tuple[str, str]]:
    """An urlencoded form's (name, value) pairs; past MAX_FIELDS refused
    before the text is split (`a&a&…` in 1 MiB took ~0.3 s to split only to
    be counted and refused)."""
    try:
        return parse_qsl(text, keep_blank_values=True, max_num_fields=MAX_FIELDS)
    except ValueError:  # "Max number of fields exceeded"
        raise ValidationFailed(f"The form has more than {MAX_FIELDS} fields.") from None


def as_object(pairs: list[tuple[str, Any]], into: dict | None = None) -> dict:
    if len(pairs) > MAX_FIELDS:
        raise ValidationFailed(f"The form has more than {MAX_FIELDS} fields.")
    result: dict[str, Any] = {} if into is None else into
    for name, value in pairs:
        if name not in result:
            result[name] = value
        elif isinstance(result[name], list):
            result[name].append(value)
        else:
            result[name] = [result[name], value]
    return result


def _is_json(kind: str) -> bool:
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


def _is_text(kind: str) -> bool:
    return kind.startswith("text/") or kind in (FORM, MULTIPART)


def check_charset(request: HttpRequest) -> None:
    """415 before the body is read: JSON in a charset other than UTF-8, or
    text in a charset Python does not know."""
    kind = (request.content_type or "").lower()
    if _is_json(kind):
        limits.check_json_charset(request)
    elif _is_text(kind):
        # Codecs Python knows that are no character set never get here
        # (core/http/body_charset.py); what is left to refuse is a name
        # Python does not know. One list for both: core/charsets.py.
        charset = request.content_params.get("charset", "utf-8")
        if text_codec(charset) is None:
            raise UnsupportedMediaType(
                f"The charset {charset!r} is not a text encoding Weir knows."
            )


def _text(request: HttpRequest, body: bytes) -> str:
    charset = request.content_params.get("charset", "utf-8")
    try:
        return body.decode(charset)
    except UnicodeError:
        raise ValidationFailed(f"The body is not valid {charset} text.") from None


def _storable(value: Any, what: str) -> Any:
    try:
        check_storable(value, what=what)
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None
    return value


def parse(request: HttpRequest, body: bytes) -> Parsed:
    """The flow's input for `body`, by its Content-Type (its charset checked
    by `check_charset` already)."""
    kind = (request.content_type or "").lower()
    if _is_json(kind):
        # Promised JSON: an empty body is not JSON (400), nor is `null` a value.
        value = limits.parse_json(body)
        if value is None:
            raise ValidationFailed(
                "The JSON body is null; send an object, a list, a string, a "
                "number or a boolean."
            )
        return Parsed(value)
    if not body:
        return Parsed(query_object(request))
    kind = kind or DEFAULT_TYPE
    if kind == FORM:
        pairs = form_pairs(_text(request, body))
        return Parsed(_storable(as_object(pairs), "The form"))
    if kind == MULTIPART:
        pairs, uploads = multipart.parse(request, body)
        return Parsed(_storable(as_object(pairs), "The form"), uploads)
    if kind.startswith("text/"):
        return Parsed(_storable(_text(request, body), "The text body"))
    upload = Upload(field="", name="body", content_type=kind, data=body)
    return Parsed(None, [upload], whole=True)
