"""The Knowledge pages: add, see and delete documents, errors beside their field."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from knowledge.indexing import index_now
from knowledge.models import Document, KnowledgeBase
from tests.knowledge.bases import HANDBOOK, add_markdown, make_base


def test_the_nav_links_to_knowledge_and_an_empty_list_says_what_to_do(alice_client):
    html = alice_client.get("/knowledge/").content.decode()

    assert 'href="/knowledge/"' in html
    assert "No knowledge bases yet" in html


def test_creating_a_base_opens_its_page(alice_client, alice):
    response = alice_client.post("/knowledge/", {"name": "Support"})

    base = KnowledgeBase.objects.get(name="Support")
    assert response.status_code == 302
    assert response["Location"] == f"/knowledge/{base.id}/"
    assert "No documents yet" in alice_client.get(response["Location"]).content.decode()


def test_a_blank_name_is_said_beside_the_field(alice_client):
    response = alice_client.post("/knowledge/", {"name": " "})

    assert response.status_code == 400
    assert "Give the knowledge base a name." in response.content.decode()


def test_an_added_file_shows_queued_then_ready_and_is_searchable(alice_client, alice):
    base = make_base(alice)
    page = f"/knowledge/{base.id}/"

    alice_client.post(
        page,
        {
            "action": "add_file",
            "file": SimpleUploadedFile(
                "handbook.md", HANDBOOK.encode(), "text/markdown"
            ),
        },
    )
    assert "status-queued" in alice_client.get(page).content.decode()
    index_now(str(Document.objects.get().pk))

    html = alice_client.get(page, {"q": "support desk hours"}).content.decode()
    assert "status-ready" in html
    assert "nine to five" in html
    assert "handbook.md · passage" in html


def test_an_oversized_file_is_413_with_the_limit_beside_the_field(
    alice_client, alice, settings
):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 100
    base = make_base(alice)

    response = alice_client.post(
        f"/knowledge/{base.id}/",
        {"action": "add_file", "file": SimpleUploadedFile("big.md", b"x" * 101)},
    )

    assert response.status_code == 413
    assert 'id="file-error"' in response.content.decode()
    assert not Document.objects.exists()


def test_a_private_url_is_refused_beside_its_field(alice_client, alice):
    base = make_base(alice)

    response = alice_client.post(
        f"/knowledge/{base.id}/",
        {"action": "add_url", "url": "http://169.254.169.254/latest/"},
    )

    assert response.status_code == 400
    assert "not a public address" in response.content.decode()


def test_deleting_a_document_removes_its_row(alice_client, alice):
    base = make_base(alice)
    document = add_markdown(base)

    alice_client.post(
        f"/knowledge/{base.id}/", {"action": "delete", "document": str(document.id)}
    )

    assert not Document.objects.exists()
    assert (
        "No documents yet"
        in alice_client.get(f"/knowledge/{base.id}/").content.decode()
    )


def test_another_workspaces_base_page_is_404(bob, alice):
    base = make_base(alice)
    client = Client()
    client.force_login(bob)

    assert client.get(f"/knowledge/{base.id}/").status_code == 404
    assert (
        client.post(f"/knowledge/{base.id}/", {"action": "add_url"}).status_code == 404
    )
