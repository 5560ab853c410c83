"""`/api/apps`: listing apps and operations, and admins adding one."""

from __future__ import annotations

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from flows.app_actions.documents import MAX_DOCUMENT_BYTES
from flows.app_actions.models import UploadedApp
from tests.accounts.test_bearer import bearer, issue
from tests.factories import UserFactory
from tests.flows.app_actions.documents import DocumentServer, looping, widgets_yaml

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_api(db):
    client = APIClient()
    client.force_login(UserFactory(username="root", is_superuser=True, is_staff=True))
    return client


def error_of(answer) -> dict:
    return answer.json()["error"]


def test_the_list_shows_every_vendored_app_with_its_operations_count_and_auth(api):
    answer = api.get("/api/apps")

    assert answer.status_code == 200
    apps = {app["slug"]: app for app in answer.json()}
    assert {
        "slack",
        "github",
        "google-sheets",
        "notion",
        "stripe",
        "jira",
        "telegram",
        "discord",
    } <= set(apps)
    assert apps["slack"]["name"] == "Slack"
    assert apps["slack"]["operations_count"] == 3
    assert apps["slack"]["icon"].endswith("img/apps/slack.svg")
    assert apps["discord"]["auth"] == [
        {
            "scheme": "botToken",
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "kinds": ["header"],
        }
    ]


def test_an_apps_operations_carry_their_parameters_and_body_schema(api):
    answer = api.get("/api/apps/github/operations")

    assert answer.status_code == 200
    create = next(op for op in answer.json() if op["id"] == "issues/create")
    assert (create["method"], create["path"]) == (
        "POST",
        "/repos/{owner}/{repo}/issues",
    )
    assert [p["name"] for p in create["parameters"]] == ["owner", "repo"]
    assert create["parameters"][0]["required"] is True
    assert create["request_body_schema"]["required"] == ["title"]


def test_a_token_reads_the_apps_too(alice):
    _, value = issue(alice, "flows:read")
    client = bearer(value)

    assert client.get("/api/apps").status_code == 200


def test_an_unknown_app_has_no_operations(api):
    answer = api.get("/api/apps/nope/operations")

    assert answer.status_code == 404
    assert error_of(answer)["code"] == "not_found"


def test_nobody_signed_out_sees_the_apps(anon):
    assert anon.get("/api/apps").status_code in (401, 403)


def test_only_an_admin_adds_an_app(api):
    answer = api.post("/api/apps", {"document": widgets_yaml().decode()}, format="json")

    assert answer.status_code == 403
    assert error_of(answer)["code"] == "permission_denied"
    assert not UploadedApp.objects.exists()


def test_an_admin_uploads_a_document_and_everyone_sees_the_app(admin_api, api):
    upload = SimpleUploadedFile("widgets.yaml", widgets_yaml(), "application/yaml")

    answer = admin_api.post("/api/apps", {"document": upload}, format="multipart")

    assert answer.status_code == 201, answer.json()
    assert answer.json()["slug"] == "widgets"
    assert answer.json()["auth"][0]["kinds"] == ["query"]
    [operation] = api.get("/api/apps/widgets/operations").json()
    assert operation["id"] == "getWidget"


def test_an_invalid_document_is_a_400_naming_the_problem(admin_api):
    document = yaml.safe_load(widgets_yaml())
    del document["info"]["version"]

    answer = admin_api.post("/api/apps", {"document": document}, format="json")

    assert answer.status_code == 400
    assert error_of(answer)["code"] == "invalid_document"
    assert error_of(answer)["message"] == (
        "Invalid OpenAPI at info: 'version' is a required property"
    )


def test_a_ref_loop_is_refused(admin_api):
    answer = admin_api.post("/api/apps", {"document": looping()}, format="json")

    assert answer.status_code == 400
    assert error_of(answer)["code"] == "ref_loop"
    assert "#/components/schemas/Widget" in error_of(answer)["message"]


def test_a_document_over_10_mb_is_refused(admin_api):
    huge = widgets_yaml() + b"#" * MAX_DOCUMENT_BYTES
    upload = SimpleUploadedFile("huge.yaml", huge, "application/yaml")

    answer = admin_api.post("/api/apps", {"document": upload}, format="multipart")

    assert answer.status_code == 400
    assert error_of(answer)["code"] == "document_too_large"


def test_a_slug_already_taken_is_a_conflict(admin_api):
    answer = admin_api.post(
        "/api/apps",
        {"document": widgets_yaml().decode(), "slug": "slack"},
        format="json",
    )

    assert answer.status_code == 409
    assert error_of(answer)["code"] == "conflict"


def test_a_document_is_fetched_from_a_url_through_the_outbound_wall(
    admin_api, settings
):
    server = DocumentServer({"widgets.yaml": widgets_yaml(title="Fetched widgets")})
    url = server.url("widgets.yaml")

    refused = admin_api.post("/api/apps", {"url": url}, format="json")
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    fetched = admin_api.post("/api/apps", {"url": url}, format="json")
    missing = admin_api.post(
        "/api/apps", {"url": server.url("gone.yaml")}, format="json"
    )
    server.shutdown()

    assert refused.status_code == 400
    assert error_of(refused)["code"] == "fetch_failed"
    assert fetched.status_code == 201, fetched.json()
    assert fetched.json()["slug"] == "fetched-widgets"
    assert UploadedApp.objects.get().source_url == url
    assert (missing.status_code, error_of(missing)["code"]) == (400, "fetch_failed")
    assert "404" in error_of(missing)["message"]


def test_a_post_without_a_document_names_the_field(admin_api):
    answer = admin_api.post("/api/apps", {}, format="json")

    assert answer.status_code == 400
    assert error_of(answer)["code"] == "validation_error"
