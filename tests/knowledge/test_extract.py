"""Text out of each kind of document a base accepts."""

from __future__ import annotations

import io

import docx
import pytest
from pypdf import PdfWriter
from pypdf.generic import DecodedStreamObject, DictionaryObject, NameObject

from knowledge.extract import ExtractionFailed, extract_text, kind_of


def pdf_with(text: str) -> bytes:
    """A one-page PDF showing `text` in Helvetica, written with pypdf."""
    writer = PdfWriter()
    page = writer.add_blank_page(width=400, height=200)
    font = DictionaryObject(
        {
            NameObject("/Type"): NameObject("/Font"),
            NameObject("/Subtype"): NameObject("/Type1"),
            NameObject("/BaseFont"): NameObject("/Helvetica"),
        }
    )
    page[NameObject("/Resources")] = DictionaryObject(
        {NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})}
    )
    stream = DecodedStreamObject()
    stream.set_data(f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode())
    page[NameObject("/Contents")] = writer._add_object(stream)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx_with(*paragraphs: str) -> bytes:
    document = docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def test_a_pdfs_text_is_read():
    assert "Refunds take five days" in extract_text(
        pdf_with("Refunds take five days"), "pdf"
    )


def test_a_docx_files_paragraphs_are_read():
    text = extract_text(docx_with("Opening hours", "Nine to five."), "docx")

    assert text == "Opening hours\n\nNine to five."


def test_html_keeps_its_words_and_drops_scripts_and_styles():
    page = (
        b"<html><head><style>p{color:red}</style><script>steal()</script></head>"
        b"<body><h1>Pricing</h1><p>The plan costs <b>9 euros</b>.</p></body></html>"
    )

    assert extract_text(page, "html") == "Pricing\n\nThe plan costs 9 euros."


def test_markdown_and_text_are_read_as_they_are():
    assert extract_text("# Title\n\nBody ü".encode(), "markdown") == "# Title\n\nBody ü"


def test_a_damaged_pdf_fails_with_a_sentence():
    with pytest.raises(ExtractionFailed, match="pdf file could not be read"):
        extract_text(b"%PDF-1.4 not really", "pdf")


@pytest.mark.parametrize(
    ("name", "content_type", "kind"),
    [
        ("guide.pdf", "", "pdf"),
        ("notes.md", "application/octet-stream", "markdown"),
        ("x.bin", "text/html; charset=utf-8", "html"),
        ("a.docx", "", "docx"),
        ("photo.png", "image/png", None),
    ],
)
def test_the_kind_comes_from_the_media_type_or_the_name(name, content_type, kind):
    assert kind_of(name, content_type) == kind
