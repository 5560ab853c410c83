"""Reading an OpenAPI document: parsed, size-capped, free of `$ref` loops and
valid per openapi-spec-validator, then with its local `$ref`s resolved.

Every refusal is a `DocumentProblem` whose message names the problem, which
the upload API returns as a 400 (docs/apps.md).
"""

from __future__ import annotations

import math
from typing import Any

import yaml

from core.startup import import_on_first_use

MAX_DOCUMENT_BYTES = 10 * 1024 * 1024
# Values (objects, lists, scalars) of the document with its `$ref`s resolved:
# about what 10 MB hold written out. YAML aliases and `$ref`s each name a
# part many times, so a small document could otherwise unfold into billions.
MAX_RESOLVED_VALUES = 1_000_000
VERSIONS = ("3.0", "3.1")
MESSAGE_CHARS = 300  # of the validator's message, which may quote the document
# Where a schema's structure is: a $ref under one of these is a part of the
# schema (a tree node's children), not another name for it.
STRUCTURE = frozenset(
    {"properties", "items", "additionalProperties", "prefixItems"}
    | {"patternProperties"}
)
RECURSIVE = "x-weir-recursive"
# What JSON holds besides objects and lists (and what its keys may be read
# from: it writes a number, true or null key as text).
PLAIN = (str, int, float, bool, type(None))


class DocumentProblem(Exception):
    """Why a document cannot be an app; `code` is the API error code."""

    def __init__(self, message: str, code: str = "invalid_document"):
        super().__init__(message)
        self.code = code
        self.message = message


class JsonLikeLoader(yaml.SafeLoader):
    """YAML read as the JSON it is stored as: a date (`2024-05-01`, as
    OpenAPI examples often write them unquoted) is its text."""


JsonLikeLoader.add_constructor(
    "tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str
)


def parse(raw: bytes | str) -> dict:
    """The document in `raw` (YAML or JSON), refused when over 10 MB."""
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise DocumentProblem(
            f"The document is larger than {MAX_DOCUMENT_BYTES // (1024 * 1024)} MB.",
            "document_too_large",
        )
    try:
        document = yaml.load(raw, Loader=JsonLikeLoader)  # noqa: S506 (a SafeLoader)
    except yaml.YAMLError as error:
        raise DocumentProblem(
            f"The document is neither JSON nor YAML: {error}"
        ) from None
    except ValueError as error:  # an integer of over 4300 digits
        raise DocumentProblem(f"The document cannot be read: {error}") from None
    except RecursionError:
        raise DocumentProblem("The document nests too deeply.") from None
    if not isinstance(document, dict):
        raise DocumentProblem("The document is not an object (an OpenAPI document).")
    return document


def checked(document: dict) -> dict:
    """`document` with its local `$ref`s resolved, after the checks above."""
    version = str(document.get("openapi", ""))
    if not version.startswith(VERSIONS):
        raise DocumentProblem(
            f"openapi is {version[:20]!r}: only OpenAPI 3.0 and 3.1 documents are apps."
        )
    check_parts(document)
    resolved = resolve_refs(document)
    validator = import_on_first_use("openapi_spec_validator")
    invalid = import_on_first_use("openapi_spec_validator.validation.exceptions")
    try:
        validator.validate(document)
    except invalid.OpenAPIValidationError as error:
        where = "/".join(str(part) for part in error.path) or "the document"
        message = error.message
        if len(message) > MESSAGE_CHARS:
            message = message[:MESSAGE_CHARS] + "…"
        raise DocumentProblem(f"Invalid OpenAPI at {where}: {message}") from None
    except RecursionError:
        raise DocumentProblem("The document nests too deeply.", "ref_loop") from None
    return resolved


def is_local(ref: str) -> bool:
    return ref.startswith("#/")


def outside(ref: str, where: str = "") -> DocumentProblem:
    at = f" at {where}" if where else ""
    return DocumentProblem(
        f"$ref {ref[:200]!r}{at} points outside the document; only local "
        "references (#/components/...) are read."
    )


def check_parts(document: dict) -> None:
    """Refuse any `$ref` to another file or a URL, wherever it is: also one
    beside a local `$ref`, which resolution replaces by its target and so
    never reads (openapi-spec-validator fetches what it reaches); and any
    value JSON cannot hold (YAML's sets, bytes, NaN), which the database
    would not store. Each object and list is looked at once, however many
    YAML aliases name it."""
    seen: set[int] = set()
    stack: list[tuple[Any, tuple]] = [(document, ())]
    while stack:
        value, trail = stack.pop()
        if id(value) in seen:
            continue
        seen.add(id(value))
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str) and not is_local(ref):
                raise outside(ref, "/".join(map(str, trail))[:200])
            items = list(value.items())
        else:
            items = list(enumerate(value))
        for key, item in items:
            if isinstance(item, dict | list):
                stack.append((item, (*trail, key)))
            elif not isinstance(key, PLAIN) or not is_json_scalar(item):
                where = "/".join(map(str, (*trail, key)))[:200]
                raise DocumentProblem(
                    f"{where} holds {str(item)[:40]!r}, which JSON cannot "
                    "(a YAML set, binary, NaN or infinity): quote it as text."
                )


def is_json_scalar(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, PLAIN)


def resolve_refs(document: dict) -> dict:
    """A copy of `document` with every `{"$ref": "#/..."}` replaced by what it
    points at; one to another file or a URL is refused (`invalid_document`).

    A recursive schema (a tree node whose `children` are items of itself) is
    read once: where it comes back through properties or items, the copy
    holds a `RECURSIVE` stub of the same type, which the form shows as a JSON
    field. A loop of aliases with no structure between them (A is B, B is
    A) describes nothing and is refused (`ref_loop`). A document unfolding
    (through `$ref`s or YAML aliases) into more than MAX_RESOLVED_VALUES
    values is refused (`document_too_large`) as soon as it gets there."""
    values = 0

    def target(ref: str) -> Any:
        if not is_local(ref):
            raise outside(ref)
        node: Any = document
        for part in ref[2:].split("/"):
            part = part.replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise DocumentProblem(f"$ref {ref[:200]!r} points at nothing.")
            node = node[part]
        return node

    def walk(value: Any, trail: tuple[str, ...], aliases: tuple[str, ...]) -> Any:
        """`trail`: the refs being resolved around `value`; `aliases`: those
        followed since the last step into a schema's structure."""
        nonlocal values
        values += 1
        if values > MAX_RESOLVED_VALUES:
            raise DocumentProblem(
                f"The document unfolds into more than {MAX_RESOLVED_VALUES} values "
                "once its $refs and YAML aliases are resolved.",
                "document_too_large",
            )
        if isinstance(value, dict):
            ref = value.get("$ref")
            if isinstance(ref, str):
                if ref in aliases:
                    loop = " → ".join((*aliases[aliases.index(ref) :], ref))
                    raise DocumentProblem(f"$ref loop: {loop}.", "ref_loop")
                if ref in trail:
                    return recursive_stub(ref, target(ref))
                return walk(target(ref), (*trail, ref), (*aliases, ref))
            return {
                key: walk(item, trail, () if key in STRUCTURE else aliases)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [walk(item, trail, aliases) for item in value]
        return value

    try:
        return walk(document, (), ())
    except RecursionError:
        raise DocumentProblem("The document nests too deeply.", "ref_loop") from None


def recursive_stub(ref: str, schema: Any) -> dict:
    """What stands where a recursive schema comes back: its type, and where
    it recurs (`RECURSIVE`), without its structure again."""
    stub: dict = {RECURSIVE: ref, "description": f"Recursive ({ref}): as JSON."}
    if isinstance(schema, dict) and "type" in schema:
        stub["type"] = schema["type"]
    return stub


def load(raw: bytes | str) -> dict:
    """Parse and check `raw` in one step (what uploads and plugins use)."""
    return checked(parse(raw))
