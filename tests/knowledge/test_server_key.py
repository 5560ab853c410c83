"""Who may spend the server's OPENAI_API_KEY on embeddings (found in review):
an `openai:` embedder calls the provider with the server-wide key, as an
agent without a credential does, so only staff may choose it."""

from __future__ import annotations

import pytest

from knowledge.models import KnowledgeBase
from tests.knowledge.bases import make_base

pytestmark = pytest.mark.django_db

PAID = "openai:text-embedding-3-small"


def assert_embedder_refused(response):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "server" in str(error["details"]["embedder"])


def test_a_user_cannot_make_a_base_that_embeds_on_the_servers_key(api):
    response = api.post(
        "/api/knowledge-bases", {"name": "Docs", "embedder": PAID}, format="json"
    )

    assert_embedder_refused(response)
    assert not KnowledgeBase.objects.exists()


def test_a_user_cannot_move_a_base_onto_the_servers_key(api, alice):
    base = make_base(alice)

    response = api.patch(
        f"/api/knowledge-bases/{base.id}", {"embedder": PAID}, format="json"
    )

    assert_embedder_refused(response)
    base.refresh_from_db()
    assert base.embedder == "hash"


def test_staff_may_and_an_editor_keeps_what_staff_chose(api, alice):
    alice.is_staff = True
    alice.save()
    made = api.post(
        "/api/knowledge-bases", {"name": "Docs", "embedder": PAID}, format="json"
    )
    alice.is_staff = False
    alice.save()

    renamed = api.patch(
        f"/api/knowledge-bases/{made.json()['id']}",
        {"name": "Handbook", "embedder": PAID},
        format="json",
    )

    assert made.status_code == 201, made.content
    assert renamed.status_code == 200, renamed.content
    assert KnowledgeBase.objects.get().embedder == PAID


def test_embedders_that_use_no_server_key_are_anyones(api):
    response = api.post(
        "/api/knowledge-bases",
        {"name": "Docs", "embedder": "ollama:nomic-embed-text"},
        format="json",
    )

    assert response.status_code == 201, response.content
