"""Documents that try the edges of reading one (found in review): a `$ref` to
a URL or a file hidden beside a local one, and YAML that is not JSON (nesting
past Python's recursion limit, huge integers, dates, sets, bytes, NaN). Each is
a 400 in the API's error envelope, never a 500 and never a request to the
address it names. Adding an app is an admin's, but a document fetched by URL
is whoever serves it."""

from __future__ import annotations

import copy

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from flows.app_actions.models import UploadedApp
from tests.factories import UserFactory
from tests.flows.app_actions.documents import WIDGETS, DocumentServer, widgets_yaml

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(db):
    client = APIClient()
    client.force_login(UserFactory(username="root", is_superuser=True, is_staff=True))
    return client


@pytest.fixture
def server():
    listening = DocumentServer({"schema.json": b'{"type": "string"}'})
    yield listening
    listening.shutdown()


def with_schema(schema: dict) -> dict:
    """WIDGETS whose GET /widgets/{id} answers `schema`."""
    document = copy.deepcopy(WIDGETS)
    answer = document["paths"]["/widgets/{id}"]["get"]["responses"]["200"]
    answer["content"]["application/json"]["schema"] = schema
    return document


def upload(admin_api, text: str):
    file = SimpleUploadedFile("app.yaml", text.encode(), "application/yaml")
    return admin_api.post("/api/apps", {"document": file}, format="multipart")


def assert_refused(answer, code: str = "invalid_document") -> str:
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == code
    assert not UploadedApp.objects.exists()
    return answer.json()["error"]["message"]


def test_a_ref_to_a_url_is_refused_and_never_fetched(admin_api, server):
    document = with_schema({"$ref": server.url("schema.json")})

    answer = admin_api.post("/api/apps", {"document": document}, format="json")

    assert "points outside the document" in assert_refused(answer)
    assert server.requested == []


@pytest.mark.parametrize(
    "external", ["URL", "file:///etc/passwd", "other.yaml#/components/schemas/A"]
)
def test_an_external_ref_beside_a_local_ref_is_refused_not_dropped(
    admin_api, server, external
):
    external = server.url("schema.json") if external == "URL" else external
    document = with_schema(
        {
            "$ref": "#/components/schemas/Widget",
            "properties": {"owner": {"$ref": external}},
        }
    )

    answer = admin_api.post("/api/apps", {"document": document}, format="json")

    message = assert_refused(answer)
    assert external[:40] in message
    assert "points outside the document" in message
    assert server.requested == []


def test_a_local_ref_with_a_description_beside_it_is_still_read(admin_api):
    document = with_schema(
        {"$ref": "#/components/schemas/Widget", "description": "The widget."}
    )

    answer = admin_api.post("/api/apps", {"document": document}, format="json")

    assert answer.status_code == 201, answer.content


@pytest.mark.parametrize(
    "text",
    [
        "[" * 50_000,
        "".join(" " * depth + "a:\n" for depth in range(3_000)),
    ],
    ids=["flow", "block"],
)
def test_yaml_nested_past_pythons_recursion_limit_is_a_400(admin_api, text):
    assert "nests too deeply" in assert_refused(upload(admin_api, text))


def test_an_integer_of_more_digits_than_python_reads_is_a_400(admin_api):
    text = widgets_yaml().decode() + f"x-value: {'9' * 5_000}\n"

    assert "cannot be read" in assert_refused(upload(admin_api, text))


@pytest.mark.parametrize("date", ["2024-05-01", "2020-02-30"])
def test_an_unquoted_date_is_kept_as_its_text(admin_api, date):
    text = widgets_yaml().decode() + f"x-released: {date}\n"

    answer = upload(admin_api, text)

    assert answer.status_code == 201, answer.content
    assert UploadedApp.objects.get().document["x-released"] == date


@pytest.mark.parametrize(
    "value", ["!!set {a: null}", "!!binary aGVsbG8=", ".nan", "-.inf"]
)
def test_a_yaml_value_json_cannot_hold_is_a_400(admin_api, value):
    text = widgets_yaml().decode() + f"x-value: {value}\n"

    message = assert_refused(upload(admin_api, text))

    assert "JSON" in message
    assert "x-value" in message


def test_a_yaml_value_json_cannot_hold_is_refused_from_a_url_too(admin_api, settings):
    text = widgets_yaml().decode() + "x-value: !!set {a: null}\n"
    served = DocumentServer({"app.yaml": text.encode()})
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]

    answer = admin_api.post("/api/apps", {"url": served.url("app.yaml")}, format="json")
    served.shutdown()

    assert_refused(answer)


def test_the_yaml_files_shipped_are_still_read(admin_api):
    text = yaml.safe_dump(WIDGETS)

    assert upload(admin_api, text).status_code == 201
