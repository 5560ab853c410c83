"""The API's JSON parser: DRF's, with a size limit and no 500 for deep nesting.

DRF reads the body straight from the request stream, so Django's
`DATA_UPLOAD_MAX_MEMORY_SIZE` never applies to it; this parser applies the same
limit (413 `payload_too_large`). A body nested deeper than Python's recursion
limit makes `json.load` raise RecursionError, which is the client's mistake
(400 `invalid_json`), not ours. How deep a *valid* value may nest is the
business of `core.storable`, checked where the value is used.
"""

from __future__ import annotations

import io

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise RequestDataTooBig(f"The request body is over {limit} bytes.")
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise ParseError(
                "JSON parse error - the body is nested too deep."
            ) from None
