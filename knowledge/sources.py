"""Reading a URL document through the outbound wall (core/net/outbound.py):
private, loopback and metadata addresses are refused, when the URL is added
and again, for every redirect and DNS answer, when the worker fetches it."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from core.net import outbound

FETCH_SECONDS = 30


class FetchFailed(Exception):
    """The page could not be fetched; `code` is the wall's (`address_refused`...)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def check_url(url: str) -> None:
    """FetchFailed unless `url` is http(s) to an address the wall lets through."""
    if not outbound.is_http_url(url):
        raise FetchFailed("invalid_url", "A URL starting with http:// or https://.")
    parts = urlsplit(url)
    try:
        outbound.checked_address(
            parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)
        )
    except outbound.OutboundError as error:
        raise FetchFailed(error.code, error.message) from None


def fetch(url: str) -> tuple[bytes, str]:
    """The page's bytes and Content-Type; FetchFailed for anything but a 2xx."""
    try:
        answer = outbound.request(
            "GET",
            url,
            {"Accept": "text/html, text/markdown, text/plain, application/pdf, */*"},
            None,
            time.monotonic() + FETCH_SECONDS,
            response_format="file",
        )
    except outbound.OutboundError as error:
        raise FetchFailed(error.code, error.message) from None
    if not 200 <= answer["status"] < 300:
        raise FetchFailed("http_error", f"The page answered {answer['status']}.")
    body = answer["body"]
    return body.data, body.content_type
