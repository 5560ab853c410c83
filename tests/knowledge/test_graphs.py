"""A large base's graph is built by a worker, never by a search: searches
meanwhile answer exactly, or from the previous graph plus what was added
since; a build killed half-way is queued again (knowledge/graphs.py)."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest
from django.core.cache import cache
from django_tasks_db.models import DBTaskResult

from knowledge import documents, graphs
from knowledge.models import Chunk
from knowledge.search import search
from tests.knowledge.bases import add_markdown, make_base

pytestmark = pytest.mark.django_db

TOPICS = [
    "Refunds are paid back within five working days to the card that paid.",
    "The support desk answers from nine to five, Monday to Friday.",
    "A webhook answers 429 when a flow is called too often.",
    "Invoices are sent on the first day of each month by e-mail.",
    "Passwords are stored hashed and never shown again.",
    "The office cat is called Pixel and sleeps on the printer.",
    "Backups run every night at two and are kept for thirty days.",
    "Holidays are booked through the team calendar a week ahead.",
    "The VPN needs a hardware key registered with the IT desk.",
    "Parking spaces on level two are for visitors only.",
]
LARGE = "\n\n".join(TOPICS)


@pytest.fixture
def large(settings, tmp_path, alice):
    """A base past the exact threshold (10 passages, threshold 5)."""
    settings.KNOWLEDGE_INDEX = "embedded"
    settings.KNOWLEDGE_EXACT_BELOW = 5
    settings.KNOWLEDGE_GRAPH_DIR = str(tmp_path / "graphs")
    settings.KNOWLEDGE_CHUNK_CHARS = 80
    settings.KNOWLEDGE_CHUNK_OVERLAP = 0
    cache.clear()
    return make_base(alice)


def builds_queued(base) -> int:
    return DBTaskResult.objects.filter(
        task_path="knowledge.graphs.build_graph", args_kwargs__args=[str(base.pk)]
    ).count()


def exact_answer(base, query: str, k: int = 3) -> list[str]:
    """What scanning every passage finds: the yardstick."""
    from knowledge import embedders

    [vector] = embedders.embed(base.embedder, [query])
    rows = list(Chunk.objects.filter(base=base).values_list("text", "vector"))
    scores = [np.frombuffer(bytes(raw), dtype=np.float32) @ vector for _, raw in rows]
    order = sorted(range(len(rows)), key=lambda i: -scores[i])[:k]
    return [rows[i][0] for i in order]


def texts(passages) -> list[str]:
    return [passage.text for passage in passages]


def test_indexing_a_large_base_queues_one_build_and_builds_nothing(
    large, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        add_markdown(large, text=LARGE)
    assert Chunk.objects.filter(base=large).count() > 5
    assert builds_queued(large) == 1
    assert graphs.latest(large.pk) is None


def test_a_search_before_the_build_answers_exactly_and_never_builds(
    large, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        add_markdown(large, text=LARGE)
        found = search(large, "when are refunds paid back", k=3)
        again = search(large, "who is the office cat", k=3)
    assert texts(found) == exact_answer(large, "when are refunds paid back")
    assert "Pixel" in again[0].text
    assert graphs.latest(large.pk) is None
    assert builds_queued(large) == 1  # searches do not queue it again


def test_the_worker_builds_the_graph_and_searches_use_it(large):
    add_markdown(large, text=LARGE)
    version = type(large).objects.get(pk=large.pk).version

    path = graphs.build_graph.call(str(large.pk))

    stored = graphs.latest(large.pk)
    assert stored is not None and str(stored.path) == path
    assert stored.version == version
    assert stored.max_key == Chunk.objects.filter(base=large).latest("id").id
    assert graphs.build_now(str(large.pk)) is None  # built already: nothing to do
    found = search(large, "when are refunds paid back", k=3)
    assert texts(found) == exact_answer(large, "when are refunds paid back")


def test_passages_added_after_the_build_are_found_before_the_next(
    large, django_capture_on_commit_callbacks
):
    add_markdown(large, text=LARGE)
    graphs.build_now(str(large.pk))
    built = graphs.latest(large.pk)

    with django_capture_on_commit_callbacks(execute=True):
        add_markdown(large, name="dog.md", text="The office dog is called Biscuit.")
        [best, *_] = search(large, "what is the office dog called", k=3)

    assert "Biscuit" in best.text
    assert graphs.latest(large.pk) == built  # the old graph, and an exact scan
    assert builds_queued(large) == 1


def test_a_deleted_document_is_not_answered_from_the_older_graph(large):
    document = add_markdown(large, text=LARGE)
    graphs.build_now(str(large.pk))

    documents.delete(document)

    assert search(large, "when are refunds paid back", k=3) == []


def test_a_half_written_graph_is_never_read(large):
    add_markdown(large, text=LARGE)
    where = graphs.folder(large.pk)
    where.mkdir(parents=True)
    (where / ".f00d.tmp").write_bytes(b"half a graph")

    assert graphs.latest(large.pk) is None
    found = search(large, "when are refunds paid back", k=3)
    assert texts(found) == exact_answer(large, "when are refunds paid back")


def test_a_build_killed_half_way_is_queued_again_and_redone(
    large, django_capture_on_commit_callbacks, monkeypatch
):
    """The worker died after writing part of the file: no graph, a temporary
    file. Once the lease is over, the next search queues the build again; the
    worker that takes it builds the graph and clears the debris."""
    with django_capture_on_commit_callbacks(execute=True):
        add_markdown(large, text=LARGE)
    where = graphs.folder(large.pk)
    where.mkdir(parents=True, exist_ok=True)
    debris = where / ".dead.tmp"
    debris.write_bytes(b"half a graph")
    long_ago = time.time() - graphs.BUILD_LEASE_SECONDS - 1
    os.utime(debris, (long_ago, long_ago))
    version = type(large).objects.get(pk=large.pk).version
    cache.delete(f"knowledge-graph:{large.pk}:{version}")  # the lease ran out

    with django_capture_on_commit_callbacks(execute=True):
        search(large, "refunds", k=3)

    assert builds_queued(large) == 2
    graphs.build_graph.call(str(large.pk))
    assert graphs.latest(large.pk).version == version
    assert not debris.exists()


def test_two_builds_at_once_leave_one_whole_graph(large, monkeypatch):
    """Build A has written its temporary file when build B runs start to end;
    then A renames its own: one graph, whole, and no temporary file."""
    add_markdown(large, text=LARGE)
    replace = os.replace
    interleaved = []

    def a_then_b(source, target):
        if not interleaved:
            interleaved.append(source)
            monkeypatch.setattr(graphs, "latest", lambda base_id: None)
            interleaved.append(graphs.build_now(str(large.pk)))  # B, whole
        replace(source, target)

    monkeypatch.setattr(graphs.os, "replace", a_then_b)
    first = graphs.build_now(str(large.pk))  # A

    assert first == interleaved[1]
    assert [p.name for p in graphs.folder(large.pk).iterdir()] == [
        os.path.basename(first)
    ]
    monkeypatch.undo()
    found = search(large, "when are refunds paid back", k=3)
    assert texts(found) == exact_answer(large, "when are refunds paid back")


def test_a_base_shrunk_below_the_threshold_loses_its_graph(large):
    document = add_markdown(large, text=LARGE)
    graphs.build_now(str(large.pk))
    documents.delete(document)
    add_markdown(large, name="small.md", text="The office dog is called Biscuit.")

    graphs.build_now(str(large.pk))

    assert graphs.latest(large.pk) is None
    assert "Biscuit" in search(large, "office dog", k=1)[0].text


def test_a_graph_pruned_between_listing_and_reading_falls_back_to_exact(large):
    add_markdown(large, text=LARGE)
    graphs.build_now(str(large.pk))
    stored = graphs.latest(large.pk)
    stored.path.unlink()

    assert graphs.loaded(stored, large.pk) is None
    found = search(large, "when are refunds paid back", k=3)
    assert texts(found) == exact_answer(large, "when are refunds paid back")
