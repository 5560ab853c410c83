"""A document's bytes as plain text: PDF (pypdf), DOCX (python-docx), HTML
(lxml, scripts and styles dropped), Markdown and text as they are."""

from __future__ import annotations

import io
import re
import time
import zipfile
from pathlib import PurePosixPath

from django.conf import settings

KINDS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".html": "html",
    ".htm": "html",
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".text": "text",
}
MEDIA_TYPES = {
    "application/pdf": "pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
    "text/html": "html",
    "application/xhtml+xml": "html",
    "text/markdown": "markdown",
    "text/plain": "text",
}
# A DOCX (a zip) may unpack to this many times KNOWLEDGE_MAX_DOCUMENT_BYTES:
# python-docx reads each part whole and lxml parses it whole, so a small zip of
# gigabytes of XML would take the worker's memory. More text than this could
# not be indexed anyway (KNOWLEDGE_MAX_DOCUMENT_CHUNKS).
DOCX_UNPACKED_RATIO = 5
# A PDF's text is read for at most this long: its pages may all parse one
# long content stream (a few kilobytes kept one worker busy for hours).
PDF_READ_SECONDS = 60


class ExtractionFailed(Exception):
    """The file is not one we read, or it is damaged; the message says which."""


def kind_of(name: str, content_type: str) -> str | None:
    """`pdf`, `docx`, `html`, `markdown` or `text`; None for anything else.
    The media type wins over the file name's suffix."""
    media = content_type.split(";")[0].strip().lower()
    return MEDIA_TYPES.get(media) or KINDS.get(PurePosixPath(name.lower()).suffix)


def extract_text(data: bytes, kind: str) -> str:
    try:
        if kind == "pdf":
            return _pdf(data)
        if kind == "docx":
            return _docx(data)
        if kind == "html":
            return _html(data)
    except ExtractionFailed:
        raise
    except Exception as error:  # each library has its own errors for bad files
        raise ExtractionFailed(f"The {kind} file could not be read: {error}") from None
    return data.decode("utf-8", errors="replace")


def _pdf(data: bytes) -> str:
    from pypdf import PdfReader

    deadline = time.monotonic() + PDF_READ_SECONDS

    def in_time(*_operation) -> None:
        """Called by pypdf before each operator of every page and form."""
        if time.monotonic() > deadline:
            raise ExtractionFailed(
                f"The pdf file took longer than {PDF_READ_SECONDS} s to read."
            )

    reader = PdfReader(io.BytesIO(data))
    return "\n\n".join(
        page.extract_text(visitor_operand_before=in_time) or "" for page in reader.pages
    )


def _docx(data: bytes) -> str:
    import docx

    _check_unpacked(data)
    document = docx.Document(io.BytesIO(data))
    return "\n\n".join(paragraph.text for paragraph in document.paragraphs)


def _check_unpacked(data: bytes) -> None:
    """ExtractionFailed when the zip's parts say they unpack past the limit.
    Reading never gives more than a part's stated size (zipfile stops there,
    and a part that would give more fails its CRC check)."""
    limit = DOCX_UNPACKED_RATIO * settings.KNOWLEDGE_MAX_DOCUMENT_BYTES
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        unpacked = sum(info.file_size for info in archive.infolist())
    if unpacked > limit:
        raise ExtractionFailed(
            f"The docx file unpacks to more than {limit} bytes "
            f"({DOCX_UNPACKED_RATIO} times KNOWLEDGE_MAX_DOCUMENT_BYTES)."
        )


def _html(data: bytes) -> str:
    import lxml.html

    root = lxml.html.document_fromstring(data)
    for element in root.xpath("//script|//style|//noscript|//template"):
        element.drop_tree()
    blocks = root.xpath(
        "//p|//li|//h1|//h2|//h3|//h4|//h5|//h6|//pre|//td|//th|//blockquote"
    )
    if not blocks:
        return _squash(root.text_content())
    return "\n\n".join(
        text for block in blocks if (text := _squash(block.text_content()))
    )


def _squash(text: str) -> str:
    return re.sub(r"[ \t\r\f\v]+", " ", text).strip()
