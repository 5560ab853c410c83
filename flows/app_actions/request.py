"""An operation's request from the node's rendered `params`: the URL with its
path and query parameters, the header parameters, and the body.

`params` maps each parameter's name to its value, and `body` to the request
body (an object for a JSON or form body). A value that is null or "" counts as
not given: a required one missing fails the node with `missing_parameter`.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

from flows.app_actions.app import MULTIPART, Operation
from flows.nodes.base import NodeError
from flows.nodes.templates import as_text

BODY = "body"


def given(value) -> bool:
    return value is not None and value != ""


def missing(operation: Operation, name: str, where: str) -> NodeError:
    return NodeError(
        "missing_parameter",
        f"{operation.id} needs {name} ({where}); give it a value in the form.",
    )


def build(
    operation: Operation, params: dict, base_url: str
) -> tuple[str, dict, object]:
    """`(url, headers, body)` of the operation's request to `base_url`."""
    path = operation.path
    query: list[tuple[str, str]] = []
    headers: dict[str, str] = {}
    for parameter in operation.parameters:
        name, where = parameter["name"], parameter["in"]
        value = params.get(name)
        if not given(value):
            if parameter["required"]:
                raise missing(operation, name, f"a {where} parameter")
            continue
        if where == "path":
            path = path.replace("{" + name + "}", quote(as_text(value), safe=""))
        elif where == "query":
            for item in value if isinstance(value, list) else [value]:
                query.append((name, as_text(item)))
        else:
            headers[name] = as_text(value)
    url = base_url.rstrip("/") + path
    if query:
        url += "?" + urlencode(query)
    return url, headers, body_of(operation, params.get(BODY), headers)


def body_of(operation: Operation, body, headers: dict):
    """The request body: JSON as the value itself (the client encodes it), a
    form as `application/x-www-form-urlencoded` bytes, nested objects in the
    bracket style (`metadata[plan]=pro`) form APIs such as Stripe's read;
    `multipart/form-data` as its object of fields, which the node encodes
    with their run files (flows/nodes/http_files.py)."""
    if operation.body_type is None:
        return None
    required = (operation.request_body_schema or {}).get("required") or []
    if not given(body) or body == {}:
        if required:
            raise missing(operation, BODY, "the request body")
        return None
    if isinstance(body, dict):
        for name in required:
            if not given(body.get(name)):
                raise missing(operation, f"body.{name}", "a field of the request body")
    if operation.body_type == "application/json":
        return body
    if not isinstance(body, dict):
        raise NodeError(
            "invalid_params", f"{operation.id} takes a form: body must be an object."
        )
    if operation.body_type == MULTIPART:  # encoded with its files by the node
        return body
    headers["Content-Type"] = operation.body_type
    return urlencode(list(form_pairs(body))).encode()


def form_pairs(value, prefix: str = ""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from form_pairs(item, f"{prefix}[{key}]" if prefix else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from form_pairs(item, f"{prefix}[{index}]")
    elif given(value):
        yield prefix, as_text(value)
