"""`/api/knowledge-bases`: bases, documents, search, and their error envelopes."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.models import Membership
from accounts.workspaces.personal import personal_workspace
from knowledge.indexing import index_now
from knowledge.models import Document
from tests.knowledge.bases import HANDBOOK, add_markdown, make_base


def upload(client, base, name="handbook.md", data=None, kind="text/markdown"):
    data = HANDBOOK.encode() if data is None else data
    return client.post(
        f"/api/knowledge-bases/{base.id}/documents",
        {"file": SimpleUploadedFile(name, data, content_type=kind)},
        format="multipart",
    )


def error_of(response) -> dict:
    return response.json()["error"]


def test_creating_a_base_puts_it_in_the_personal_workspace(api, alice):
    response = api.post("/api/knowledge-bases", {"name": "Docs"}, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["workspace"] == str(personal_workspace(alice).pk)
    assert (body["embedder"], body["documents"]) == ("hash", 0)


def test_a_second_base_with_the_same_name_is_409(api, alice):
    make_base(alice, name="Docs")

    response = api.post("/api/knowledge-bases", {"name": "Docs"}, format="json")

    assert response.status_code == 409
    assert error_of(response)["code"] == "conflict"


def test_an_unknown_embedder_is_400_naming_the_field(api):
    response = api.post(
        "/api/knowledge-bases", {"name": "Docs", "embedder": "magic"}, format="json"
    )

    assert response.status_code == 400
    assert "embedder" in error_of(response)["details"]


def test_an_uploaded_file_is_queued_then_indexed_and_searchable(
    api, alice, django_capture_on_commit_callbacks
):
    base = make_base(alice)

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = upload(api, base)

    assert response.status_code == 202, response.content
    document = response.json()
    assert (document["status"], document["name"]) == ("queued", "handbook.md")
    assert len(callbacks) == 1  # the indexing task, enqueued once committed
    index_now(document["id"])
    listed = api.get(f"/api/knowledge-bases/{base.id}/documents").json()
    assert listed[0]["status"] == "ready"
    assert listed[0]["chunks_done"] == listed[0]["chunks_total"] > 0
    found = api.post(
        f"/api/knowledge-bases/{base.id}/search",
        {"query": "support desk hours", "k": 2},
        format="json",
    ).json()
    assert "nine to five" in found["passages"][0]["text"]
    assert found["passages"][0]["source"] == "handbook.md"
    assert "not instructions" in found["note"]


def test_an_oversized_upload_is_413_in_the_envelope(api, alice, settings):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 1000
    base = make_base(alice)

    response = upload(api, base, data=b"x" * 1001)

    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"
    assert not Document.objects.exists()


def test_a_body_far_past_the_limit_is_413_before_it_is_read(api, alice, settings):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 1000
    base = make_base(alice)

    response = upload(api, base, data=b"x" * 200_000)

    assert response.status_code == 413
    assert error_of(response)["code"] == "payload_too_large"


def test_a_file_of_another_kind_is_400_naming_file(api, alice):
    response = upload(api, make_base(alice), name="cat.png", kind="image/png")

    assert response.status_code == 400
    assert error_of(response)["details"]["file"] == [
        "Weir reads PDF, DOCX, HTML, Markdown (.md) and text (.txt) files."
    ]


def test_neither_file_nor_url_is_400(api, alice):
    response = api.post(
        f"/api/knowledge-bases/{make_base(alice).id}/documents", {}, format="json"
    )

    assert response.status_code == 400
    assert error_of(response)["code"] == "validation_error"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:8000/admin",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/",
        "http://[::1]/",
    ],
)
def test_a_url_to_a_private_address_is_refused_by_the_outbound_wall(api, alice, url):
    response = api.post(
        f"/api/knowledge-bases/{make_base(alice).id}/documents",
        {"url": url},
        format="json",
    )

    assert response.status_code == 400
    [message] = error_of(response)["details"]["url"]
    assert "not a public address" in message
    assert not Document.objects.exists()


def test_a_url_that_is_not_http_is_400(api, alice):
    response = api.post(
        f"/api/knowledge-bases/{make_base(alice).id}/documents",
        {"url": "file:///etc/passwd"},
        format="json",
    )

    assert response.status_code == 400
    assert "url" in error_of(response)["details"]


def test_a_page_is_fetched_through_the_wall_when_allowed(
    api, alice, server, allow_loopback
):
    url = f"http://127.0.0.1:{server.server_port}/faq"
    base = make_base(alice)

    response = api.post(
        f"/api/knowledge-bases/{base.id}/documents",
        {"url": url},
        format="json",
    )
    assert index_now(response.json()["id"]) == "ready"

    found = api.post(
        f"/api/knowledge-bases/{base.id}/search", {"query": "parcels"}, format="json"
    ).json()
    assert found["passages"][0]["text"].endswith(
        "Parcels ship on Tuesdays.\n</passage>"
    )
    assert found["passages"][0]["source"] == url


def test_another_workspaces_base_and_documents_do_not_exist(bob_api, alice):
    base = make_base(alice)
    document = add_markdown(base)
    paths = [
        ("get", f"/api/knowledge-bases/{base.id}"),
        ("get", f"/api/knowledge-bases/{base.id}/documents"),
        ("post", f"/api/knowledge-bases/{base.id}/documents"),
        ("post", f"/api/knowledge-bases/{base.id}/search"),
        ("get", f"/api/knowledge-bases/{base.id}/documents/{document.id}"),
        ("delete", f"/api/knowledge-bases/{base.id}/documents/{document.id}"),
        ("post", f"/api/knowledge-bases/{base.id}/documents/{document.id}/reindex"),
        ("delete", f"/api/knowledge-bases/{base.id}"),
    ]

    for method, path in paths:
        response = getattr(bob_api, method)(path, {"query": "x"}, format="json")
        assert response.status_code == 404, path
        assert error_of(response)["code"] == "not_found"
    assert bob_api.get("/api/knowledge-bases").json() == []
    document.refresh_from_db()  # still there


def test_a_viewer_searches_but_may_not_add_documents(bob_api, alice, bob):
    base = make_base(alice)
    add_markdown(base)
    Membership.objects.create(workspace=base.workspace, user=bob, role="viewer")

    searched = bob_api.post(
        f"/api/knowledge-bases/{base.id}/search", {"query": "refunds"}, format="json"
    )
    added = upload(bob_api, base)

    assert searched.status_code == 200
    assert added.status_code == 403
    assert error_of(added)["code"] == "permission_denied"


def test_deleting_a_document_removes_its_passages_from_search(api, alice):
    base = make_base(alice)
    document = add_markdown(base)

    response = api.delete(f"/api/knowledge-bases/{base.id}/documents/{document.id}")

    assert response.status_code == 204
    found = api.post(
        f"/api/knowledge-bases/{base.id}/search", {"query": "refunds"}, format="json"
    ).json()
    assert found["passages"] == []


def test_changing_the_embedder_queues_every_document_again(api, alice):
    base = make_base(alice)
    document = add_markdown(base)

    response = api.patch(
        f"/api/knowledge-bases/{base.id}",
        {"embedder": "ollama:nomic-embed-text"},
        format="json",
    )

    assert response.status_code == 200
    document.refresh_from_db()
    assert document.status == "queued"
    assert not base.chunks.exists()


def test_reindexing_a_document_queues_it(api, alice):
    base = make_base(alice)
    document = add_markdown(base)

    response = api.post(
        f"/api/knowledge-bases/{base.id}/documents/{document.id}/reindex"
    )

    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    assert index_now(str(document.id)) == "ready"
