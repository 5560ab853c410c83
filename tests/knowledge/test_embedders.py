"""Embedders: the offline hashing one, and providers' APIs through the official
openai client against the tests' protocol server."""

from __future__ import annotations

import numpy as np
import pytest

from knowledge import embedders
from knowledge.indexing import index_now
from knowledge.search import search
from tests.knowledge.bases import add_markdown, make_base
from tests.llm_server import letter_counts


def test_the_hash_embedder_gives_the_same_unit_vector_every_time():
    first, second = embedders.embed("hash", ["Refunds take days", "Refunds take days"])

    assert first.shape == (embedders.HASH_DIMENSIONS,)
    assert np.array_equal(first, second)
    assert np.linalg.norm(first) == pytest.approx(1.0)


def test_texts_sharing_words_are_nearer_than_texts_that_share_none():
    refund, refunds_again, weather = embedders.embed(
        "hash",
        ["refunds are paid in five days", "when are refunds paid", "sunny weather"],
    )

    assert refund @ refunds_again > refund @ weather


def test_openai_embeddings_are_asked_in_batches_and_normalised(llm_server):
    texts = [f"text {n}" for n in range(embedders.BATCH + 3)]

    vectors = embedders.embed("openai:text-embedding-3-small", texts)

    assert vectors.shape == (len(texts), 26)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    expected = np.asarray(letter_counts("text 5"))
    assert np.allclose(vectors[5], expected / np.linalg.norm(expected))
    calls = llm_server.bodies("/v1/embeddings")
    assert [len(call["input"]) for call in calls] == [embedders.BATCH, 3]
    assert calls[0]["model"] == "text-embedding-3-small"
    [first, *_] = [r for r in llm_server.requests if r["path"] == "/v1/embeddings"]
    assert first["headers"]["authorization"] == "Bearer sk-test-openai"


def test_ollama_embeddings_go_to_its_openai_compatible_endpoint(llm_server):
    [vector] = embedders.embed("ollama:nomic-embed-text", ["hello"])

    assert vector.shape == (26,)
    assert llm_server.bodies("/v1/embeddings")[0]["model"] == "nomic-embed-text"


def test_a_base_embedded_by_a_provider_is_searchable(llm_server, alice):
    base = make_base(alice, embedder="openai:text-embedding-3-small")
    add_markdown(base, "z.md", "zzzz zzz zz")
    add_markdown(base, "a.md", "aaaa aaa aa")

    [best] = search(base, "zzz", k=1)

    assert best.source == "z.md"


def test_an_unreachable_provider_fails_the_document_with_a_sentence(
    settings, closed_port, alice
):
    settings.OPENAI_BASE_URL = f"http://127.0.0.1:{closed_port}/v1"
    settings.AGENT_MAX_RETRIES = 0
    base = make_base(alice, embedder="openai:text-embedding-3-small")
    document = add_markdown(base, index=False)

    assert index_now(str(document.pk)) == "failed"

    document.refresh_from_db()
    assert document.error.startswith("The openai embeddings call failed")


@pytest.mark.parametrize("name", ["", "openai", "cohere:x", "hash:extra"])
def test_an_unknown_embedder_name_is_refused(name):
    with pytest.raises(ValueError, match="An embedder is"):
        embedders.parse(name)
