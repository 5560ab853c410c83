"""The demo's knowledge base: Weir's own docs, for the demo agent to answer from
(`manage.py seed_demo`, through agents/demo.py)."""

from __future__ import annotations

from django.conf import settings

from knowledge import documents
from knowledge.indexing import index_now
from knowledge.models import KnowledgeBase

DEMO_DOCS = ("knowledge.md", "agents.md", "engine.md", "webhooks.md", "builder.md")


def seed_weir_docs(user, workspace, stdout) -> KnowledgeBase:
    """The `Weir docs` base of `workspace`, made and indexed once, here and now
    (the hash embedder needs no network and no worker)."""
    base, created = KnowledgeBase.objects.get_or_create(
        workspace=workspace, name="Weir docs", defaults={"created_by": user}
    )
    if not created:
        return base
    folder = settings.BASE_DIR / "docs"
    for name in DEMO_DOCS:
        path = folder / name
        if path.exists():
            document = documents.add_file(
                base, name, path.read_bytes(), "text/markdown"
            )
            index_now(str(document.pk))
    stdout.write(f"  Demo knowledge base 'Weir docs' ({base.documents.count()} docs).")
    return base
