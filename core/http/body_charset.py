"""Refuse a request body in a codec that is no character set, before anything
decodes it.

Django decodes each field of a multipart form (`request.POST`, which its CSRF
check reads on every POST it checks, a page's or the API's) with the charset
the Content-Type names, any codec Python knows (an urlencoded form it refuses
unless UTF-8); the webhook decodes text and forms likewise. Python also knows
codecs that are no character set (core/charsets.py): one request of 1 MiB
labelled `charset=punycode` held a web thread, and the GIL with it, for 66 s,
from anyone, before any rate limit (docs/security.md, S28). Such a request is
answered 415 here, first. A name Python does not know is left alone: Django
then reads UTF-8, and the webhook refuses it itself (webhooks/bodies.py).
"""

from __future__ import annotations

from core.charsets import TEXT_CODECS, codec_name
from core.http.errors import UnsupportedMediaType, error_response_for


def refused_charset(request) -> str | None:
    """The charset `request`'s Content-Type names when Python has a codec of
    that name that is no character set of TEXT_CODECS; else None."""
    label = request.content_params.get("charset")
    if not label:
        return None
    name = codec_name(label)
    return label if name is not None and name not in TEXT_CODECS else None


class BodyCharsetMiddleware:
    """415 `unsupported_media_type` for a body in a codec that is no charset."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        label = refused_charset(request)
        if label is not None:
            return error_response_for(
                UnsupportedMediaType(
                    f"The charset {label!r} is not a text encoding Weir reads."
                )
            )
        return self.get_response(request)
