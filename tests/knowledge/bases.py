"""Knowledge bases for the tests, indexed as a worker would (a plugin of
tests/conftest.py: the flows and agents tests use them too)."""

from __future__ import annotations

import pytest

from accounts.workspaces.personal import personal_workspace
from knowledge import documents
from knowledge.indexing import index_now
from knowledge.models import KnowledgeBase

HANDBOOK = """# Weir handbook

## Refunds

Refunds are paid back within five working days to the card that paid.

## Opening hours

The support desk answers from nine to five, Monday to Friday.

## Webhooks

A webhook answers 429 when a flow is called too often.
"""


@pytest.fixture(params=["embedded", "qdrant"])
def vector_engine(request, settings):
    """Each test runs once per vector index: one interface, both engines."""
    settings.KNOWLEDGE_INDEX = request.param
    return request.param


def make_base(owner, name="Handbook", **fields) -> KnowledgeBase:
    return KnowledgeBase.objects.create(
        workspace=personal_workspace(owner), name=name, created_by=owner, **fields
    )


def add_markdown(base, name="handbook.md", text=HANDBOOK, *, index=True):
    document = documents.add_file(base, name, text.encode(), "text/markdown")
    if index:
        index_now(str(document.pk))
        document.refresh_from_db()
    return document
