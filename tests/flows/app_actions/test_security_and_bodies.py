"""An app's operations against a real API on loopback (docs/apps.md): each
operation's own `security` (none at all, or another scheme than the
document's), a `multipart/form-data` body with a run file, and a recursive
schema (a tree) read, while a loop of bare aliases is still refused."""

from __future__ import annotations

import copy
import json

import pytest
from rest_framework.test import APIClient

from flows.engine import run_flow
from tests.factories import FlowFactory, UserFactory, make_credential
from tests.flows.app_actions.documents import looping
from tests.flows.graphs import chain, code, node, trigger
from tests.flows.nodes.test_http_request_files import MAKE_FILES, received_parts
from tests.http_server import base

pytestmark = pytest.mark.django_db

OK = {"200": {"description": "Done."}}
TREE = "#/components/schemas/Tree"
LOCAL = {
    "openapi": "3.1.0",
    "info": {"title": "Local", "version": "1"},
    "servers": [{"url": "https://local.example.com"}],
    "components": {
        "securitySchemes": {
            "token": {"type": "http", "scheme": "bearer"},
            "key": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        },
        "schemas": {
            "Tree": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": TREE}},
                },
            }
        },
    },
    "security": [{"token": []}],
    "paths": {
        "/default": {"post": {"operationId": "asDocument", "responses": OK}},
        "/open": {"post": {"operationId": "open", "security": [], "responses": OK}},
        "/keyed": {
            "post": {"operationId": "keyed", "security": [{"key": []}], "responses": OK}
        },
        "/maybe": {
            "post": {
                "operationId": "maybe",
                "security": [{}, {"key": []}],
                "responses": OK,
            }
        },
        "/upload": {
            "post": {
                "operationId": "upload",
                "requestBody": {
                    "content": {
                        "multipart/form-data": {
                            "schema": {
                                "type": "object",
                                "required": ["report"],
                                "properties": {
                                    "title": {"type": "string"},
                                    "report": {"type": "string", "format": "binary"},
                                },
                            }
                        }
                    }
                },
                "security": [],
                "responses": OK,
            }
        },
        "/trees": {
            "post": {
                "operationId": "plantTree",
                "requestBody": {
                    "content": {"application/json": {"schema": {"$ref": TREE}}}
                },
                "security": [],
                "responses": OK,
            }
        },
    },
}


@pytest.fixture
def admin_api():
    client = APIClient()
    client.force_login(UserFactory(username="root", is_superuser=True, is_staff=True))
    return client


@pytest.fixture
def local_app(admin_api):
    answer = admin_api.post(
        "/api/apps", {"document": copy.deepcopy(LOCAL)}, format="json"
    )
    assert answer.status_code == 201, answer.json()
    return answer.json()["slug"]


def call(alice, server, operation, make=None, **data):
    action = node(
        "act",
        "app_action",
        app="local",
        operation=operation,
        server_url=base(server),
        **data,
    )
    steps = [trigger()] + ([code("make", make)] if make else []) + [action]
    nodes, edges = chain(*steps)
    return run_flow(
        FlowFactory(created_by=alice, nodes=nodes, edges=edges), {}, "manual"
    )


def header(hit, name):
    return {key.lower(): value for key, value in hit["headers"].items()}.get(name)


def test_an_operation_without_security_of_its_own_uses_the_documents(
    alice, local_app, api_server, allow_loopback
):
    token = make_credential(alice, "tok", secrets={"token": "tok-abc-123"})

    run = call(alice, api_server, "asDocument", credential_id=str(token.pk))

    assert run.status == "succeeded", run.error
    assert header(api_server.seen[0], "authorization") == "Bearer tok-abc-123"


def test_an_operation_with_empty_security_sends_no_auth(
    alice, local_app, api_server, allow_loopback
):
    token = make_credential(alice, "tok", secrets={"token": "tok-abc-123"})

    picked = call(alice, api_server, "open", credential_id=str(token.pk))
    none = call(alice, api_server, "open")

    assert (picked.status, none.status) == ("succeeded", "succeeded")
    assert [header(hit, "authorization") for hit in api_server.seen] == [None, None]


def test_an_operation_naming_another_scheme_takes_that_schemes_kind(
    alice, local_app, api_server, allow_loopback
):
    token = make_credential(alice, "tok", secrets={"token": "tok-abc-123"})
    key = make_credential(
        alice, "key", kind="header", secrets={"value": "k-777"}, header_name="X-Api-Key"
    )

    wrong = call(alice, api_server, "keyed", credential_id=str(token.pk))
    missing = call(alice, api_server, "keyed")
    right = call(alice, api_server, "keyed", credential_id=str(key.pk))

    assert (wrong.error["code"], wrong.error["message"]) == (
        "credential_kind",
        "tok is a bearer credential; Local takes header.",
    )
    assert (missing.error["code"], missing.error["message"]) == (
        "credential_missing",
        "Pick a credential for Local (header).",
    )
    assert right.status == "succeeded", right.error
    [hit] = api_server.seen
    assert header(hit, "x-api-key") == "k-777"
    assert header(hit, "authorization") is None


def test_an_empty_requirement_makes_auth_optional(
    alice, local_app, api_server, allow_loopback
):
    key = make_credential(
        alice, "key", kind="header", secrets={"value": "k-777"}, header_name="X-Api-Key"
    )

    without = call(alice, api_server, "maybe")
    signed = call(alice, api_server, "maybe", credential_id=str(key.pk))

    assert (without.status, signed.status) == ("succeeded", "succeeded")
    assert [header(hit, "x-api-key") for hit in api_server.seen] == [None, "k-777"]


def test_a_multipart_body_sends_its_text_and_run_file(
    alice, local_app, api_server, allow_loopback
):
    run = call(
        alice,
        api_server,
        "upload",
        make=MAKE_FILES,
        params={"body": {"title": "Q3", "report": "{{ results.make.csv }}"}},
    )

    assert run.status == "succeeded", run.error
    [hit] = api_server.seen
    assert header(hit, "content-type").startswith("multipart/form-data; boundary=")
    assert received_parts(hit) == [
        ("title", None, "text/plain", b"Q3"),
        ("report", "report.csv", "text/csv", b"a,b\n1,2\n"),
    ]


@pytest.mark.parametrize(
    ("body", "code", "message"),
    [
        ({"title": "Q3"}, "missing_parameter", "upload needs body.report"),
        ("{{ 'text' }}", "invalid_params", "upload takes a form: body must be"),
        ({"report": {"a": 1}}, "invalid_body", "Multipart field 'report' must be"),
    ],
)
def test_a_multipart_body_that_cannot_be_sent_fails_with_its_code(
    alice, local_app, api_server, allow_loopback, body, code, message
):
    run = call(alice, api_server, "upload", params={"body": body})

    assert run.error["code"] == code
    assert message in run.error["message"]
    assert api_server.seen == []


def test_a_recursive_schema_is_read_once_and_the_rest_is_json(
    alice, api, local_app, api_server, allow_loopback
):
    operations = api.get("/api/apps/local/operations").json()
    [plant] = [op for op in operations if op["id"] == "plantTree"]
    children = plant["request_body_schema"]["properties"]["children"]
    tree = {"name": "root", "children": [{"name": "leaf", "children": []}]}

    run = call(alice, api_server, "plantTree", params={"body": tree})

    assert children["items"] == {
        "x-weir-recursive": TREE,
        "description": f"Recursive ({TREE}): as JSON.",
        "type": "object",
    }
    assert run.status == "succeeded", run.error
    assert json.loads(api_server.seen[0]["body"]) == tree


def test_a_loop_of_bare_aliases_is_still_refused(admin_api):
    answer = admin_api.post("/api/apps", {"document": looping()}, format="json")

    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "ref_loop"
    assert answer.json()["error"]["message"] == (
        "$ref loop: #/components/schemas/Part → #/components/schemas/Widget → "
        "#/components/schemas/Part."
    )
