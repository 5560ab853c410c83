"""The knowledge_search node: a knowledge base's passages nearest a query.

Outputs `{note, query, passages: [{document_id, source, position, score,
text}]}` (knowledge/search.py): each text fenced as a `<passage>` and the note
saying they are data, not instructions, for an agent node reading them next.
Only a base of the flow's own workspace is found.
"""

from __future__ import annotations

import uuid
from typing import Any

from flows.nodes.base import FieldError, FormField, NodeContext, NodeError, NodeKind
from flows.nodes.checks import integer_between, text

MAX_RESULTS = 20


class KnowledgeSearchNode(NodeKind):
    type = "knowledge_search"
    label = "Knowledge search"
    description = "Finds the passages of a knowledge base nearest a question."
    form_fields = (
        FormField(
            "data.base_id",
            "Knowledge base",
            mono=True,
            help="The base's id, shown on its Knowledge page.",
        ),
        FormField(
            "data.query",
            "Query",
            widget="textarea",
            help="Templates allowed: {{ input.question }}.",
        ),
        FormField("data.k", "Passages", widget="number", min=1),
    )
    default_data = {"base_id": "", "query": "{{ input.question }}", "k": 5}

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = text(data, "base_id", max_length=36)
        if not problems and _uuid(data["base_id"]) is None:
            problems.append(
                FieldError("data.base_id", "A knowledge base's id (a UUID).")
            )
        problems += text(data, "query", max_length=4000)
        problems += integer_between(data, "k", 1, MAX_RESULTS, required=False)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        from knowledge import embedders
        from knowledge.models import KnowledgeBase
        from knowledge.search import as_data, search

        base = KnowledgeBase.objects.filter(
            pk=_uuid(data["base_id"]), workspace_id=ctx.workspace_id
        ).first()
        if base is None:
            raise NodeError(
                "knowledge_base_missing",
                "No knowledge base of this flow's workspace has this id.",
            )
        query = ctx.render(data["query"])
        if not isinstance(query, str) or not query.strip():
            raise NodeError("invalid_query", "The query must be a non-empty text.")
        try:
            passages = search(base, query, data.get("k", 5))
        except embedders.EmbeddingFailed as error:
            raise NodeError("embedding_failed", str(error)) from error
        ctx.log(f"{len(passages)} passages from {base.name}")
        return as_data(query, passages)


def _uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
