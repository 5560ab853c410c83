"""The one check of a JSON request body that must be an object or nothing."""

from __future__ import annotations

from collections.abc import Callable

from core.http.errors import ValidationFailed


def object_body(request, check: Callable[[dict], None] | None = None) -> dict | None:
    """The parsed body as a dict, or None when the request has no body.

    Anything but an object is a 400 `validation_error`; so is a `ValueError`
    from `check` (an app's own rule, such as what the database can store),
    with its message."""
    if not request.body:
        return None
    body = request.data
    if not isinstance(body, dict):  # `null` too: a body was sent
        raise ValidationFailed("The body must be a JSON object (or empty).")
    if check is not None:
        try:
            check(body)
        except ValueError as problem:
            raise ValidationFailed(str(problem)) from None
    return body
