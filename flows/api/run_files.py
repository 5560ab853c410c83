"""A run file's bytes as an answer: always a download, never a page.

A run file's bytes came from anyone (a webhook's sender, a fetched page), and
they are served from Weir's own origin: an HTML or SVG file shown inline would
run its script as the reader, with their session. So every answer is an
attachment (the browser saves it, never renders it), `nosniff` (no guessing a
page out of text), under a `sandbox` policy with nothing allowed (should a
browser render it anyway, no script runs and it has no origin), and a type a
browser could run as a page or script goes out as
`application/octet-stream`. The name is sent as RFC 6266 says (Django's
`content_disposition_header`: quoted, `filename*` for non-ASCII).
"""

from __future__ import annotations

from django.http import FileResponse
from rest_framework.negotiation import BaseContentNegotiation

from flows.files.models import RunFile
from flows.files.reading import open_file

# Types a browser renders as a document or runs as script.
ACTIVE_TYPES = frozenset(
    {
        "text/html",
        "application/xhtml+xml",
        "image/svg+xml",
        "text/xml",
        "application/xml",
        "text/xsl",
        "application/xslt+xml",
        "text/javascript",
        "application/javascript",
        "application/ecmascript",
        "text/ecmascript",
        "application/wasm",
        "multipart/x-mixed-replace",
        "application/pdf",
    }
)
SANDBOX_POLICY = "default-src 'none'; sandbox"


def served_type(content_type: str) -> str:
    """The Content-Type a stored file is sent with."""
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type in ACTIVE_TYPES or media_type.endswith(("+xml", "/xml")):
        return "application/octet-stream"
    return content_type


def file_response(row: RunFile) -> FileResponse:
    """The file's bytes, streamed from its store (FileMissing if they are gone)."""
    response = FileResponse(
        open_file(row),
        as_attachment=True,
        filename=row.name,
        content_type=served_type(row.content_type),
    )
    response["X-Content-Type-Options"] = "nosniff"
    response["Content-Security-Policy"] = SANDBOX_POLICY
    response["Cache-Control"] = "private, no-store"
    response["Cross-Origin-Resource-Policy"] = "same-origin"
    return response


class AnyAccept(BaseContentNegotiation):
    """A download answers whatever the client accepts (a browser's link sends
    `text/html`, a script `application/octet-stream`); errors are JSON."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type
