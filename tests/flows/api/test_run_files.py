"""GET /api/runs/:id/files/:file_id: a run file's bytes, to those who may
read the run's data, and always as a download."""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import quote

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.tokens.models import ApiToken
from accounts.workspaces.models import Membership
from flows import files
from flows.files.models import RunFile
from tests.factories import FlowRunFactory, UserFactory

pytestmark = pytest.mark.django_db

SCRIPT_PAGE = b"<html><body><script>fetch('/api/tokens')</script></body></html>"
SCRIPT_SVG = (
    b'<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.cookie)'
    b"</script></svg>"
)


@pytest.fixture
def run(alice_flow):
    return FlowRunFactory(flow=alice_flow)


def stored(run, data=b"a,b\n1,2\n", name="report.csv", content_type="text/csv"):
    return files.store(
        workspace_id=run.flow.workspace_id,
        name=name,
        content_type=content_type,
        data=data,
        run_id=run.pk,
    )


def url(run, marker) -> str:
    return f"/api/runs/{run.pk}/files/{marker['$file']['id']}"


def body(response) -> bytes:
    return b"".join(response.streaming_content)


def member(run, role):
    user = UserFactory()
    Membership.objects.create(workspace_id=run.flow.workspace_id, user=user, role=role)
    client = APIClient()
    client.force_login(user)
    return client


def with_token(user, scopes) -> APIClient:
    expires_at = timezone.now() + timedelta(days=1)
    _, value = ApiToken.issue(user, "script", scopes, expires_at)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {value}")
    return client


@pytest.mark.parametrize(
    ("data", "content_type", "name"),
    [
        (SCRIPT_PAGE, "text/html", "page.html"),
        (SCRIPT_SVG, "image/svg+xml", "logo.svg"),
        (SCRIPT_PAGE, "text/html; charset=utf-8", "page.htm"),
        (SCRIPT_PAGE, "application/xhtml+xml", "page.xhtml"),
    ],
)
def test_a_stored_page_or_svg_is_a_download_never_a_page_on_our_origin(
    api, run, data, content_type, name
):
    marker = stored(run, data, name=name, content_type=content_type)

    response = api.get(url(run, marker), HTTP_ACCEPT="text/html,*/*")

    assert response.status_code == 200
    assert response["Content-Disposition"].startswith("attachment;")
    # Not a type a browser runs, and it may not guess one.
    assert response["Content-Type"] == "application/octet-stream"
    assert response["X-Content-Type-Options"] == "nosniff"
    # Rendered anyway, it would have no origin and run no script.
    assert response["Content-Security-Policy"] == "default-src 'none'; sandbox"
    assert body(response) == data


def test_a_runner_downloads_a_file_with_its_name_type_and_bytes(api, run):
    marker = stored(run)

    response = api.get(url(run, marker))

    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv"
    assert response["Content-Disposition"] == 'attachment; filename="report.csv"'
    assert response["Content-Length"] == "8"
    assert response["Cache-Control"] == "private, no-store"
    assert body(response) == b"a,b\n1,2\n"


def test_a_name_with_quotes_and_non_ascii_letters_is_encoded_safely(api, run):
    marker = stored(run, name='naïve "quote".csv')

    response = api.get(url(run, marker))

    disposition = response["Content-Disposition"]
    assert disposition == "attachment; filename*=utf-8''" + quote('naïve "quote".csv')
    assert "\r" not in disposition and "\n" not in disposition


def test_a_client_accepting_only_octet_streams_gets_the_bytes(api, run):
    marker = stored(run)

    response = api.get(url(run, marker), HTTP_ACCEPT="application/octet-stream")

    assert response.status_code == 200
    assert body(response) == b"a,b\n1,2\n"


@pytest.mark.parametrize("role", ["runner", "editor", "admin"])
def test_members_who_read_run_data_download(run, role):
    marker = stored(run)

    response = member(run, role).get(url(run, marker))

    assert response.status_code == 200
    assert body(response) == b"a,b\n1,2\n"


def test_a_viewer_never_gets_the_bytes(run):
    marker = stored(run)

    response = member(run, "viewer").get(url(run, marker))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert "runs.data" in response.json()["error"]["message"]


def test_anonymous_gets_401(anon, run):
    marker = stored(run)

    response = anon.get(url(run, marker))

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_another_users_run_file_is_not_found(bob_api, run):
    marker = stored(run)

    response = bob_api.get(url(run, marker))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_token_with_runs_read_downloads(alice, run):
    marker = stored(run)

    response = with_token(alice, ["runs:read"]).get(url(run, marker))

    assert response.status_code == 200
    assert body(response) == b"a,b\n1,2\n"


def test_a_token_without_runs_read_gets_403(alice, run):
    marker = stored(run)

    response = with_token(alice, ["flows:read"]).get(url(run, marker))

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"


def test_a_file_of_another_run_is_not_found_through_this_one(api, run, alice_flow):
    other = FlowRunFactory(flow=alice_flow)
    marker = stored(other)

    response = api.get(url(run, marker))

    assert response.status_code == 404
    assert response.json()["error"] == {
        "code": "not_found",
        "message": "The run has no such file.",
    }


def test_an_unclaimed_file_is_not_found_through_any_run(api, run):
    marker = files.store(
        workspace_id=run.flow.workspace_id, name="a", content_type="", data=b"a"
    )

    response = api.get(url(run, marker))

    assert response.status_code == 404


@pytest.mark.parametrize(
    "file_id", ["0b7e4c3a-5f1d-4e2a-9c6b-1d2e3f4a5b6c", "not-a-uuid"]
)
def test_an_unknown_file_id_is_not_found(api, run, file_id):
    response = api.get(f"/api/runs/{run.pk}/files/{file_id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_a_file_whose_bytes_are_gone_is_not_found(api, run, _run_files_folder):
    marker = stored(run)
    (_run_files_folder / RunFile.objects.get().storage_key).unlink()

    response = api.get(url(run, marker))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "gone" in response.json()["error"]["message"]


def test_writing_to_the_file_url_is_not_allowed(api, run):
    marker = stored(run)

    response = api.delete(url(run, marker))

    assert response.status_code == 405
    assert response.json()["error"]["code"] == "method_not_allowed"
    assert RunFile.objects.count() == 1


def test_head_answers_the_headers_of_the_download(api, run):
    marker = stored(run)

    response = api.head(url(run, marker))

    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="report.csv"'
    assert response["Content-Length"] == "8"
