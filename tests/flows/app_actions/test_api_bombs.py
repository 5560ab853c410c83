"""Small documents that grow without end when read (found in review): YAML
aliases, and `$ref`s fanning out, are copied out by `$ref` resolution into a
document of millions of values, built in a web thread and stored in the
database, where every palette load reads it again. A document fetched from
someone else's URL is theirs to write, whoever adds it."""

from __future__ import annotations

import copy
import time

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from flows.app_actions.models import UploadedApp
from tests.factories import UserFactory
from tests.flows.app_actions.documents import WIDGETS

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(db):
    client = APIClient()
    client.force_login(UserFactory(username="root", is_superuser=True, is_staff=True))
    return client


def laughs(levels: int = 6) -> bytes:
    """A 1 KB YAML document whose aliases unfold into 10**levels values."""
    lines = [
        yaml.safe_dump(WIDGETS, sort_keys=False),
        "x-level0: &l0 [ha, ha, ha, ha, ha, ha, ha, ha, ha, ha]",
    ]
    for level in range(1, levels):
        lines.append(
            f"x-level{level}: &l{level} [{', '.join([f'*l{level - 1}'] * 10)}]"
        )
    return "\n".join(lines).encode()


def fanning_refs(levels: int = 7) -> dict:
    """Schemas of ten properties each naming the next: no loop, 10**levels copies."""
    schemas = {f"S{levels - 1}": {"type": "string"}}
    for level in range(levels - 1):
        properties = {
            f"p{i}": {"$ref": f"#/components/schemas/S{level + 1}"} for i in range(10)
        }
        schemas[f"S{level}"] = {"type": "object", "properties": properties}
    document = copy.deepcopy(WIDGETS)
    document["components"]["schemas"] = schemas
    document["paths"]["/widgets/{id}"]["get"]["responses"]["200"]["content"][
        "application/json"
    ]["schema"] = {"$ref": "#/components/schemas/S0"}
    return document


def assert_too_large(answer, started):
    assert answer.status_code == 400, answer.content
    assert answer.json()["error"]["code"] == "document_too_large"
    assert "values" in answer.json()["error"]["message"]
    assert not UploadedApp.objects.exists()
    assert time.monotonic() - started < 60  # not the minutes unfolding takes


@pytest.mark.timing
def test_yaml_aliases_unfolding_into_a_million_values_are_refused(admin_api):
    upload = SimpleUploadedFile("laughs.yaml", laughs(), "application/yaml")
    started = time.monotonic()

    answer = admin_api.post("/api/apps", {"document": upload}, format="multipart")

    assert_too_large(answer, started)


@pytest.mark.timing
def test_refs_fanning_out_into_millions_of_values_are_refused(admin_api):
    started = time.monotonic()

    answer = admin_api.post("/api/apps", {"document": fanning_refs()}, format="json")

    assert_too_large(answer, started)


def test_a_few_levels_of_aliases_and_refs_are_read(admin_api):
    upload = SimpleUploadedFile("laughs.yaml", laughs(levels=3), "application/yaml")
    laughing = admin_api.post("/api/apps", {"document": upload}, format="multipart")
    fanning = admin_api.post(
        "/api/apps", {"document": fanning_refs(levels=3), "slug": "fan"}, format="json"
    )

    assert laughing.status_code == 201, laughing.content
    assert fanning.status_code == 201, fanning.content
