"""The Django admin's uploaded apps: superusers add one from a file, and an
invalid document is refused on the form, naming the problem."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from flows.app_actions.models import UploadedApp
from tests.factories import UserFactory
from tests.flows.app_actions.documents import widgets_yaml

pytestmark = pytest.mark.django_db
ADD = "/admin/flows/uploadedapp/add/"


@pytest.fixture
def root():
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def upload(raw: bytes, **fields) -> dict:
    return {"document_file": SimpleUploadedFile("doc.yaml", raw), "url": "", **fields}


def test_a_superuser_adds_an_app_from_a_file(root):
    answer = root.post(ADD, upload(widgets_yaml(), slug="widgets", icon=""))

    assert answer.status_code == 302, answer.text[:2000]
    app = UploadedApp.objects.get()
    assert (app.slug, app.name) == ("widgets", "Widgets")
    assert app.created_by.username == "root"


def test_an_invalid_document_is_refused_on_the_form(root):
    document = yaml.safe_load(widgets_yaml())
    document["openapi"] = "2.0"

    answer = root.post(ADD, upload(yaml.safe_dump(document).encode(), slug="w"))

    assert answer.status_code == 200
    assert "only OpenAPI 3.0 and 3.1 documents are apps" in answer.text
    assert not UploadedApp.objects.exists()


def test_staff_who_are_not_superusers_do_not_see_uploaded_apps():
    client = Client()
    client.force_login(UserFactory(username="helper", is_staff=True))

    assert client.get(ADD).status_code == 403
