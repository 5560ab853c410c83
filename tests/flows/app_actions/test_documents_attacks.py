"""Documents that try the edges of reading one (found in review): a `$ref` to
a URL or a file hidden beside a local one. Each is a 400 in the API's error
envelope, never a request to the address it names. Adding an app is an
admin's, but a document fetched by URL is whoever serves it."""

from __future__ import annotations

import copy

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from flows.app_actions.models import UploadedApp
from tests.factories import UserFactory
from tests.flows.app_actions.documents import WIDGETS, DocumentServer

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


def test_the_yaml_files_shipped_are_still_read(admin_api):
    text = yaml.safe_dump(WIDGETS)

    assert upload(admin_api, text).status_code == 201
