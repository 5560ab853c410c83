"""Adding, re-indexing and deleting documents: the rules the page and the API share."""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction

from knowledge import graphs
from knowledge.extract import kind_of
from knowledge.indexing import queue_indexing
from knowledge.models import Document, KnowledgeBase
from knowledge.sources import FetchFailed, check_url


class DocumentRefused(Exception):
    """A document that may not be added: `field` is where the problem is,
    `too_large` whether it is its size (413 rather than 400)."""

    def __init__(self, field: str, message: str, *, too_large: bool = False):
        super().__init__(message)
        self.field = field
        self.message = message
        self.too_large = too_large


# A multipart body's framing around the file, allowed past the document limit.
MULTIPART_SLACK_BYTES = 64 * 1024


def refuse_large_body(request) -> None:
    """DocumentRefused (too large) for a body far past the limit, before Django
    reads it: its Content-Length says so."""
    limit = settings.KNOWLEDGE_MAX_DOCUMENT_BYTES + MULTIPART_SLACK_BYTES
    if int(request.META.get("CONTENT_LENGTH") or 0) > limit:
        raise DocumentRefused("file", too_large_message(), too_large=True)


def too_large_message() -> str:
    return (
        f"A document may be at most {settings.KNOWLEDGE_MAX_DOCUMENT_BYTES} bytes "
        "(KNOWLEDGE_MAX_DOCUMENT_BYTES)."
    )


def add_file(
    base: KnowledgeBase, name: str, data: bytes, content_type: str
) -> Document:
    """Store an uploaded file and queue it; a file of the same name is replaced
    (its passages are swapped once the new one is indexed)."""
    name = PurePosixPath(name.replace("\\", "/")).name[:300] or "document"
    if len(data) > settings.KNOWLEDGE_MAX_DOCUMENT_BYTES:
        raise DocumentRefused("file", too_large_message(), too_large=True)
    if kind_of(name, content_type) is None:
        raise DocumentRefused(
            "file", "Weir reads PDF, DOCX, HTML, Markdown (.md) and text (.txt) files."
        )
    with transaction.atomic():
        document = base.documents.filter(
            name=name, source=Document.Source.FILE
        ).first() or _new(base, name=name, source=Document.Source.FILE)
        document.content = data
        document.content_type = content_type
        document.size_bytes = len(data)
        document.save()
        queue_indexing(document)
    return document


def add_url(base: KnowledgeBase, url: str) -> Document:
    """Queue a web page; the outbound wall refuses private addresses now and
    again when the worker fetches it."""
    try:
        check_url(url)
    except FetchFailed as refused:
        raise DocumentRefused("url", str(refused)) from None
    with transaction.atomic():
        document = base.documents.filter(
            url=url, source=Document.Source.URL
        ).first() or _new(
            base,
            name=(urlsplit(url).hostname or "") + urlsplit(url).path,
            source=Document.Source.URL,
            url=url,
        )
        document.save()
        queue_indexing(document)
    return document


def reindex(document: Document) -> None:
    """Index again: a URL is fetched anew, a file re-read (e.g. after the base's
    embedder changed)."""
    with transaction.atomic():
        queue_indexing(document)


def reindex_base(base: KnowledgeBase) -> None:
    """Every document again, after the base's embedder changed: vectors of two
    embedders cannot be compared, so the old passages go at once."""
    base.chunks.all().delete()
    base.changed()
    for document in base.documents.all():
        queue_indexing(document)


def delete(document: Document) -> None:
    with transaction.atomic():
        base = document.base
        document.delete()
        base.changed()
        graphs.after_change(base.pk)


def _new(base: KnowledgeBase, **fields) -> Document:
    if base.documents.count() >= settings.KNOWLEDGE_MAX_BASE_DOCUMENTS:
        raise DocumentRefused(
            "file" if fields["source"] == Document.Source.FILE else "url",
            f"A knowledge base holds at most {settings.KNOWLEDGE_MAX_BASE_DOCUMENTS} "
            "documents (KNOWLEDGE_MAX_BASE_DOCUMENTS); delete some first.",
        )
    return Document(base=base, **fields)
