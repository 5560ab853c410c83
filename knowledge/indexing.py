"""Indexing a document in the background: text, passages, vectors, stored.

`queue_indexing` marks the document `queued` and enqueues `index_document` on
Django's tasks framework (the same workers as background runs, `manage.py
work`) once the transaction commits. The worker claims it (`queued` ->
`indexing`, one conditional UPDATE, so a task delivered twice indexes once),
reports progress in `chunks_done` / `chunks_total` as batches are embedded, and
swaps the document's passages in one transaction: a search sees the old ones
or the new ones, never half.
"""

from __future__ import annotations

import logging

import numpy as np
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from django_tasks import task

from knowledge import embedders, graphs
from knowledge.chunking import chunk
from knowledge.extract import ExtractionFailed, extract_text, kind_of
from knowledge.models import Chunk, Document
from knowledge.sources import FetchFailed, fetch

logger = logging.getLogger("weir.knowledge")

EMBED_BATCH = 64


class IndexingFailed(Exception):
    """Why a document cannot be indexed, in words for its page."""


def queue_indexing(document: Document) -> None:
    Document.objects.filter(pk=document.pk).update(
        status=Document.Status.QUEUED, error="", chunks_done=0, chunks_total=0
    )
    document.status = Document.Status.QUEUED
    transaction.on_commit(lambda: index_document.enqueue(str(document.pk)))


@task
def index_document(document_id: str) -> str | None:
    """The task a worker runs; returns the document's final status."""
    return index_now(document_id)


def index_now(document_id: str) -> str | None:
    claimed = Document.objects.filter(
        pk=document_id, status=Document.Status.QUEUED
    ).update(status=Document.Status.INDEXING)
    if not claimed:
        return None  # deleted, or another copy of the task has it
    document = Document.objects.select_related("base").get(pk=document_id)
    try:
        _index(document)
    except (
        IndexingFailed,
        ExtractionFailed,
        FetchFailed,
        embedders.EmbeddingFailed,
    ) as error:
        _fail(document, str(error))
    except Exception:
        logger.exception("Indexing document %s crashed", document_id)
        _fail(document, "Indexing failed unexpectedly; see the server's log.")
    return (
        Document.objects.filter(pk=document_id).values_list("status", flat=True).first()
    )


def _index(document: Document) -> None:
    data, content_type = bytes(document.content), document.content_type
    if document.source == Document.Source.URL:
        data, content_type = fetch(document.url)
        if len(data) > settings.KNOWLEDGE_MAX_DOCUMENT_BYTES:
            raise IndexingFailed("The page is larger than a document may be.")
        Document.objects.filter(pk=document.pk).update(
            content=data, content_type=content_type, size_bytes=len(data)
        )
    kind = kind_of(document.url or document.name, content_type)
    if kind is None:
        raise IndexingFailed(
            "Weir reads PDF, DOCX, HTML, Markdown and text; this is "
            f"{content_type or 'of an unknown type'}."
        )
    pieces = chunk(
        extract_text(data, kind),
        settings.KNOWLEDGE_CHUNK_CHARS,
        settings.KNOWLEDGE_CHUNK_OVERLAP,
    )
    if not pieces:
        raise IndexingFailed("The document has no text to search.")
    _check_limits(document, len(pieces))
    Document.objects.filter(pk=document.pk).update(chunks_total=len(pieces))
    vectors = []
    for start in range(0, len(pieces), EMBED_BATCH):
        batch = pieces[start : start + EMBED_BATCH]
        vectors.append(embedders.embed(document.base.embedder, [p.text for p in batch]))
        Document.objects.filter(pk=document.pk).update(chunks_done=start + len(batch))
    matrix = np.concatenate(vectors)
    with transaction.atomic():
        if not Document.objects.select_for_update().filter(pk=document.pk).exists():
            return  # deleted while it was being indexed
        Chunk.objects.filter(document=document).delete()
        Chunk.objects.bulk_create(
            Chunk(
                base_id=document.base_id,
                document=document,
                position=piece.position,
                start=piece.start,
                text=piece.text,
                vector=vector.tobytes(),
            )
            for piece, vector in zip(pieces, matrix, strict=True)
        )
        Document.objects.filter(pk=document.pk).update(
            status=Document.Status.READY, indexed_at=timezone.now(), error=""
        )
        document.base.changed()
        graphs.after_change(document.base_id)


def _check_limits(document: Document, count: int) -> None:
    if count > settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS:
        raise IndexingFailed(
            f"The document makes {count} passages; one document may make at most "
            f"{settings.KNOWLEDGE_MAX_DOCUMENT_CHUNKS}."
        )
    others = Chunk.objects.filter(base_id=document.base_id).exclude(document=document)
    if others.count() + count > settings.KNOWLEDGE_MAX_BASE_CHUNKS:
        raise IndexingFailed(
            f"The base would hold more than {settings.KNOWLEDGE_MAX_BASE_CHUNKS} "
            "passages; delete documents first."
        )


def _fail(document: Document, message: str) -> None:
    with transaction.atomic():
        removed, _ = Chunk.objects.filter(document=document).delete()
        Document.objects.filter(pk=document.pk).update(
            status=Document.Status.FAILED, error=message[:2000]
        )
        if removed:
            document.base.changed()
