"""A `multipart/form-data` webhook body: its fields, and its files' bytes.

Django's own parser reads the parts; the body is already whole in memory
(read within `WEBHOOK_MAX_BODY_BYTES`), so every file is kept in memory too,
whatever Django's own upload thresholds say, and handed to the caller to be
stored as a run file.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from django.core.exceptions import (
    RequestDataTooBig,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.files.uploadhandler import MemoryFileUploadHandler
from django.http import HttpRequest
from django.http.multipartparser import MultiPartParser, MultiPartParserError

from core.http.errors import ValidationFailed


@dataclass(frozen=True)
class Upload:
    field: str
    name: str
    content_type: str
    data: bytes


class _InMemory(MemoryFileUploadHandler):
    """Django's in-memory handler, on for any size: the body is in memory already."""

    def handle_raw_input(self, *args, **kwargs):
        self.activated = True


def parse(
    request: HttpRequest, body: bytes
) -> tuple[list[tuple[str, str]], list[Upload]]:
    """The form's (name, value) fields in order, and its files."""
    meta = {**request.META, "CONTENT_LENGTH": str(len(body))}
    try:  # the parser refuses a missing boundary as it is made
        parser = MultiPartParser(meta, io.BytesIO(body), [_InMemory()], "utf-8")
        data, files = parser.parse()
    except (
        MultiPartParserError,
        RequestDataTooBig,
        TooManyFieldsSent,
        TooManyFilesSent,
    ) as problem:
        raise ValidationFailed(
            f"The multipart body cannot be read: {problem}"
        ) from None
    fields = [(name, value) for name in data for value in data.getlist(name)]
    uploads = [
        Upload(
            field=name,
            name=upload.name or name,
            content_type=upload.content_type or "application/octet-stream",
            data=upload.read(),
        )
        for name in files
        for upload in files.getlist(name)
    ]
    return fields, uploads
