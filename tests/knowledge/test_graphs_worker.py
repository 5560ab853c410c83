"""A real worker (`manage.py work`) builds a large base's graph from the task
indexing queued, while this process's searches answer exactly meanwhile."""

from __future__ import annotations

import pytest
from django.core.cache import cache

from knowledge import graphs
from knowledge.search import search
from tests.knowledge.bases import add_markdown, make_base
from tests.knowledge.test_graphs import LARGE, exact_answer, texts
from tests.processes import needs_postgres
from tests.waiting import wait_until

pytestmark = [needs_postgres, pytest.mark.processes]

SETTINGS = {
    "KNOWLEDGE_INDEX": "embedded",
    "KNOWLEDGE_EXACT_BELOW": "5",
    "KNOWLEDGE_CHUNK_CHARS": "80",
    "KNOWLEDGE_CHUNK_OVERLAP": "0",
}


def test_a_worker_builds_the_graph_while_searches_answer_exactly(
    processes, settings, tmp_path, alice
):
    folder = str(tmp_path / "graphs")
    for name, value in {**SETTINGS, "KNOWLEDGE_GRAPH_DIR": folder}.items():
        setattr(settings, name, int(value) if value.isdigit() else value)
    cache.clear()
    base = make_base(alice)
    add_markdown(base, text=LARGE)  # committed: its build task is queued

    before = search(base, "when are refunds paid back", k=3)
    assert texts(before) == exact_answer(base, "when are refunds paid back")
    assert graphs.latest(base.pk) is None

    processes.worker(env={**SETTINGS, "KNOWLEDGE_GRAPH_DIR": folder})

    built = wait_until(lambda: graphs.latest(base.pk), 90)
    assert built and built.version == type(base).objects.get(pk=base.pk).version
    after = search(base, "when are refunds paid back", k=3)
    assert texts(after) == texts(before)
