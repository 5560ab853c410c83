"""A DOCX is a zip: a small file can unpack to gigabytes of XML that
python-docx reads whole and lxml parses whole (found in review). Its parts'
unpacked sizes are checked against the document limit before it is opened."""

from __future__ import annotations

import io
import zipfile

import pytest

from knowledge import documents
from knowledge.extract import ExtractionFailed, extract_text
from knowledge.indexing import index_now
from knowledge.models import Document
from tests.knowledge.bases import make_base
from tests.knowledge.test_extract import docx_with

pytestmark = pytest.mark.django_db

PARAGRAPH = b"<w:p><w:r><w:t>Refunds take five days.</w:t></w:r></w:p>"


def docx_unpacking_to(size: int) -> bytes:
    """A valid DOCX whose document.xml holds about `size` bytes of paragraphs."""
    source = zipfile.ZipFile(io.BytesIO(docx_with("Opening hours")))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as bomb:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "word/document.xml":
                body = PARAGRAPH * (size // len(PARAGRAPH))
                data = data.replace(b"<w:body>", b"<w:body>" + body, 1)
            bomb.writestr(info.filename, data)
    return out.getvalue()


def test_a_docx_unpacking_far_past_the_limit_is_refused_unopened(settings):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 1_000_000
    bomb = docx_unpacking_to(8_000_000)
    assert len(bomb) < settings.KNOWLEDGE_MAX_DOCUMENT_BYTES

    with pytest.raises(ExtractionFailed, match="unpacks to more than 5000000 bytes"):
        extract_text(bomb, "docx")


def test_a_docx_bomb_fails_its_document_with_the_reason(settings, alice):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 1_000_000
    base = make_base(alice)
    document = documents.add_file(
        base,
        "handbook.docx",
        docx_unpacking_to(8_000_000),
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    )

    index_now(str(document.pk))

    document.refresh_from_db()
    assert document.status == Document.Status.FAILED
    assert "unpacks to more than" in document.error
    assert not document.chunks.exists()


def test_a_docx_within_the_limit_is_read(settings):
    settings.KNOWLEDGE_MAX_DOCUMENT_BYTES = 1_000_000
    text = extract_text(docx_unpacking_to(1_000_000), "docx")

    assert text.startswith("Refunds take five days.")
