"""Every API response the suite receives must be what `/api/schema` says.

A pytest plugin (listed in tests/conftest.py): it wraps Django's test client,
which DRF's APIClient also goes through, and checks each answer to an
operation in the schema as it arrives: its status must be documented for that
operation, and a JSON body must validate against the documented schema (JSON
Schema 2020-12, which OpenAPI 3.1 uses). A mismatch fails the test that made the
request, naming the operation, so the schema and the server cannot drift apart.
"""

from __future__ import annotations

import json
import re
import threading
from functools import cache

import pytest
from django.test.client import Client
from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

ROOT = "urn:weir-openapi"


class SchemaDrift(AssertionError):
    """An API answer that `/api/schema` does not describe."""


_SCHEMA_LOCK = threading.Lock()


def openapi() -> dict:
    """Built once: under a lock, as drf-spectacular's first build is not
    thread-safe (two test threads' first answers at once raised in it)."""
    with _SCHEMA_LOCK:
        return _openapi()


@cache
def _openapi() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


@cache
def registry() -> Registry:
    resource = Resource.from_contents(openapi(), default_specification=DRAFT202012)
    return Registry().with_resource(ROOT, resource)


@cache
def operations() -> list[tuple[re.Pattern, str, str]]:
    """(path regex, path template, method) for every documented operation."""
    found = []
    for template, item in openapi()["paths"].items():
        parts = re.split(r"\{[^/}]+\}", template)
        pattern = re.compile("[^/]+".join(map(re.escape, parts)) + "$")
        found += [(pattern, template, method) for method in item]
    # A literal path (/api/runs/stats) wins over a template (/api/runs/{id}), as
    # in the URL resolver.
    return sorted(found, key=lambda operation: operation[1].count("{"))


def _pointer(*parts: str) -> str:
    return "/".join(part.replace("~", "~0").replace("/", "~1") for part in parts)


def check_response(method: str, path: str, status: int, content_type: str, body):
    """Raise SchemaDrift unless the schema documents this answer."""
    method = method.lower()
    matches = [
        template
        for pattern, template, documented in operations()
        if documented == method and pattern.match(path)
    ]
    if not matches:
        return  # not an operation of the API (pages, unrouted paths, HEAD)
    template = matches[0]
    responses = openapi()["paths"][template][method]["responses"]
    key = str(status) if str(status) in responses else "default"
    if key not in responses:
        raise SchemaDrift(
            f"{method.upper()} {template} answered {status}, which /api/schema "
            f"does not list (it lists {sorted(responses)})."
        )
    media = responses[key].get("content", {}).get("application/json")
    if media is None or not content_type.startswith("application/json"):
        return
    pointer = _pointer("", "paths", template, method, "responses", key)
    validator = Draft202012Validator(
        {"$ref": f"{ROOT}#{pointer}/content/application~1json/schema"},
        registry=registry(),
    )
    error = next(iter(validator.iter_errors(body)), None)
    if error is not None:
        raise SchemaDrift(
            f"{method.upper()} {template} {status}: the body is not as /api/schema "
            f"says: {error.message} (at {error.json_path})."
        )


@pytest.fixture(autouse=True, scope="session")
def _responses_follow_the_schema():
    original = Client.request

    def request(self, **kwargs):
        response = original(self, **kwargs)
        path = kwargs.get("PATH_INFO", "")
        if path.startswith("/api/"):
            content_type = response.get("Content-Type", "")
            body = None
            if content_type.startswith("application/json") and response.content:
                body = json.loads(response.content)
            check_response(
                kwargs.get("REQUEST_METHOD", "GET"),
                path,
                response.status_code,
                content_type,
                body,
            )
        return response

    Client.request = request
    yield
    Client.request = original
