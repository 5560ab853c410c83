"""Small documents that cost the indexing worker without end (found in review).
A DOCX is a zip: a small file can unpack to gigabytes of XML that python-docx
reads whole and lxml parses whole; its parts' unpacked sizes are checked
against the document limit before it is opened. A PDF's pages can all parse
one long content stream; its reading stops at a time budget."""

from __future__ import annotations

import io
import time
import zipfile

import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from knowledge import documents, extract
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


def pdf_of_pages_sharing_one_heavy_stream(pages: int, operators: int) -> bytes:
    """A few kilobytes of PDF whose every page parses the same long stream of
    text-moving operators (measured: 6 KB, 20 pages of 150,000 operators,
    125 s of one core)."""
    writer = PdfWriter()
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    resources = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
    )
    stream = DecodedStreamObject()
    stream.set_data(b"BT /F1 12 Tf " + b"0 0 Td " * operators + b"(x) Tj ET")
    shared = writer._add_object(stream.flate_encode())
    for _ in range(pages):
        page = writer.add_blank_page(width=400, height=200)
        page[NameObject("/Resources")] = resources
        page[NameObject("/Contents")] = shared
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def test_a_pdf_taking_longer_than_its_budget_to_read_is_refused(monkeypatch):
    monkeypatch.setattr(extract, "PDF_READ_SECONDS", 0.5, raising=False)
    bomb = pdf_of_pages_sharing_one_heavy_stream(pages=10, operators=30_000)
    assert len(bomb) < 10_000
    started = time.monotonic()

    with pytest.raises(ExtractionFailed, match="took longer than 0.5 s to read"):
        extract_text(bomb, "pdf")

    assert time.monotonic() - started < 5
