"""What a form page does with a valid submission's files, and how its fields
are laid out for the page's template."""

from __future__ import annotations

from flows.files import FileTooLarge, RunFiles
from flows.forms.fields import Upload, label_of


def store_uploads(values: dict, files: RunFiles) -> dict[str, str]:
    """Store each uploaded file as a run file, its marker in its value's place;
    the errors by field name (a file past a limit)."""
    errors = {}
    for name, value in values.items():
        if not isinstance(value, Upload):
            continue
        try:
            values[name] = files.store(
                name=value.name, content_type=value.content_type, data=value.data
            )
        except FileTooLarge as error:
            errors[name] = error.message
    return errors


def field_rows(fields: list, sent=None, errors: dict | None = None) -> list[dict]:
    """One row per field for templates/webhooks/_fields.html: its definition,
    label, what was sent (to fill the field again) and its error."""
    errors = errors or {}
    rows = []
    for field in fields:
        name = field["name"]
        if sent is None or field["kind"] == "file":
            value = [] if field["kind"] == "multi_select" else ""
        elif field["kind"] == "multi_select":
            value = sent.getlist(name)
        else:
            value = sent.get(name, "")
        rows.append(
            {
                "field": field,
                "id": f"field-{name}",
                "label": label_of(field),
                "value": value,
                "error": errors.get(name, ""),
            }
        )
    return rows


def has_files(fields: list) -> bool:
    return any(field["kind"] == "file" for field in fields)
