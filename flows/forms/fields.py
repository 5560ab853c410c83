"""The fields of a form page or of a wait node's page (docs/forms.md).

A form's fields are a list in the node's data, each
`{name, label, kind, required, options, help}`. `spec_problems` checks that
list when the flow is saved; `clean` checks what a visitor sent against it
and gives the values (by field name) and the errors (by field name, one
sentence each, shown beside their field).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from django.core.exceptions import ValidationError
from django.core.validators import validate_email

KINDS = (
    "text",
    "long_text",
    "number",
    "email",
    "select",
    "multi_select",
    "checkbox",
    "date",
    "file",
)
WITH_OPTIONS = ("select", "multi_select")
MAX_FIELDS = 50
MAX_OPTIONS = 100
MAX_LABEL = 200
MAX_TEXT = {"text": 1000, "long_text": 10_000, "email": 254}
NAME = re.compile(r"^[a-z][a-z0-9_]{0,49}$")
# Names the page itself posts: a field may not take them.
RESERVED = frozenset({"csrfmiddlewaretoken", "form_password", "website", "comment"})


@dataclass(frozen=True)
class Upload:
    """A file a visitor sent, stored as a run file once the whole form is valid."""

    name: str
    content_type: str
    data: bytes


def _spec_problem(index: int, field, seen: set) -> str | None:
    where = f"Field {index + 1}"
    if not isinstance(field, dict):
        return f"{where} must be an object with a name, a label and a kind."
    name = field.get("name")
    if not isinstance(name, str) or not NAME.match(name) or name in RESERVED:
        return (
            f"{where}: the name must be lower-case letters, digits and _, "
            "starting with a letter (and not csrfmiddlewaretoken, form_password, "
            "website or comment)."
        )
    if name in seen:
        return f"{where}: another field is already named {name}."
    seen.add(name)
    label = field.get("label", "")
    if not isinstance(label, str) or len(label) > MAX_LABEL:
        return f"{where}: the label must be a text of at most {MAX_LABEL} characters."
    if field.get("kind") not in KINDS:
        return f"{where}: the kind must be one of {', '.join(KINDS)}."
    options = field.get("options", [])
    if field["kind"] in WITH_OPTIONS and (
        not isinstance(options, list)
        or not 0 < len(options) <= MAX_OPTIONS
        or not all(isinstance(option, str) and option for option in options)
    ):
        return f"{where}: a {field['kind']} needs 1 to {MAX_OPTIONS} options."
    if not isinstance(field.get("required", False), bool):
        return f"{where}: required must be true or false."
    return None


def spec_problems(fields) -> list[str]:
    """What is wrong with a list of field definitions (empty when nothing)."""
    if not isinstance(fields, list) or len(fields) > MAX_FIELDS:
        return [f"Fields must be a list of at most {MAX_FIELDS} fields."]
    seen: set = set()
    problems = [_spec_problem(i, field, seen) for i, field in enumerate(fields)]
    return [problem for problem in problems if problem]


def label_of(field: dict) -> str:
    return field.get("label") or field["name"].replace("_", " ").capitalize()


def _text(field: dict, raw: str):
    limit = MAX_TEXT.get(field["kind"], MAX_TEXT["text"])
    if len(raw) > limit:
        raise ValueError(f"At most {limit} characters, please.")
    if field["kind"] == "email":
        try:
            validate_email(raw)
        except ValidationError:
            raise ValueError("Enter an e-mail address like ada@example.com.") from None
    return raw


def _number(raw: str):
    try:
        number = float(raw)
    except ValueError:
        raise ValueError("Enter a number, like 42 or 3.5.") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise ValueError("Enter a finite number.")
    return int(number) if number.is_integer() and "." not in raw else number


def _date(raw: str) -> str:
    try:
        return date.fromisoformat(raw).isoformat()
    except ValueError:
        raise ValueError("Enter a date like 2026-12-31.") from None


def _one(field: dict, data, files):
    """The field's value, None when left empty; ValueError says why not."""
    kind, name = field["kind"], field["name"]
    if kind == "checkbox":
        return data.get(name) in ("on", "true", "1")
    if kind == "file":
        upload = files.get(name)
        if upload is None or not upload.name:
            return None
        return Upload(
            name=upload.name,
            content_type=upload.content_type or "application/octet-stream",
            data=upload.read(),
        )
    if kind == "multi_select":
        chosen = [value for value in data.getlist(name) if value]
        unknown = [value for value in chosen if value not in field["options"]]
        if unknown:
            raise ValueError("Choose from the options shown.")
        return [option for option in field["options"] if option in chosen] or None
    raw = data.get(name, "").strip()
    if not raw:
        return None
    if kind == "number":
        return _number(raw)
    if kind == "date":
        return _date(raw)
    if kind == "select" and raw not in field["options"]:
        raise ValueError("Choose one of the options shown.")
    return _text(field, raw)


def clean(fields: list, data, files) -> tuple[dict, dict[str, str]]:
    """The submitted values by name and the errors by name.

    `data` is a QueryDict (request.POST), `files` request.FILES. A file field's
    value is an `Upload` until the caller stores it; an empty optional field
    is None (a multi-select's is an empty list, a checkbox's false).
    """
    values: dict = {}
    errors: dict[str, str] = {}
    for field in fields:
        name = field["name"]
        try:
            value = _one(field, data, files)
        except ValueError as problem:
            errors[name] = str(problem)
            continue
        if field.get("required") and value in (None, False):
            errors[name] = (
                "Tick this box to go on."
                if field["kind"] == "checkbox"
                else "This field is required."
            )
            continue
        if value is None and field["kind"] == "multi_select":
            value = []
        values[name] = value
    return values, errors


class JsonValues:
    """A JSON object's values read as `clean` reads a form (`get`, `getlist`),
    so a program's or a visitor's JSON answer to a wait page is held to the
    page's fields like its form: a number may be 42 or "42", a checkbox true,
    a multi-select a list of options; any other shape is the field's error."""

    def __init__(self, values: dict):
        self.values = values

    def get(self, name: str, default: str = "") -> str:
        value = self.values.get(name)
        if value is None or value is False:
            return default
        if value is True:
            return "true"
        if isinstance(value, (str, int, float)):
            return str(value)
        raise ValueError("Send one value: a text, a number or true.")

    def getlist(self, name: str) -> list[str]:
        value = self.values.get(name)
        if value is None:
            return []
        if isinstance(value, str):
            return [value]
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return value
        raise ValueError("Send a list of the options shown.")
