"""Adding an app: a document uploaded as a file, sent in the body, or fetched
from a URL through the outbound wall (core.net.outbound), checked
(flows/app_actions/documents.py) and stored as an `UploadedApp`."""

from __future__ import annotations

import time

from django.utils.text import slugify

from core.net import outbound
from flows.app_actions import documents
from flows.app_actions.catalogue import taken
from flows.app_actions.models import UploadedApp

FETCH_TIMEOUT_SECONDS = 20


class SlugTaken(Exception):
    """Another app already has this slug."""


def fetched(url: str) -> bytes:
    """The document at `url`; DocumentProblem `fetch_failed` when it cannot
    be had (refused by the outbound wall, an error status, a timeout)."""
    if not isinstance(url, str) or not outbound.is_http_url(url):
        raise documents.DocumentProblem("url must be an http(s) URL.", "fetch_failed")
    try:
        answer = outbound.request(
            "GET",
            url,
            {"Accept": "application/yaml, application/json"},
            None,
            time.monotonic() + FETCH_TIMEOUT_SECONDS,
            response_format="text",
            max_bytes=documents.MAX_DOCUMENT_BYTES,
        )
    except outbound.OutboundError as error:
        code = "document_too_large" if error.code == "response_too_large" else None
        raise documents.DocumentProblem(
            f"Fetching {url[:200]} failed: {error.message}", code or "fetch_failed"
        ) from None
    if answer["status"] != 200:
        raise documents.DocumentProblem(
            f"Fetching {url[:200]} answered HTTP {answer['status']}.", "fetch_failed"
        )
    return str(answer["body"]).encode()


def checked_app(raw: bytes | str | dict, *, slug=None) -> tuple[str, dict]:
    """`(slug, checked document)` for `raw`; DocumentProblem when it is not
    an app, SlugTaken when its slug (given, or from its title) is taken."""
    document = documents.checked(raw if isinstance(raw, dict) else documents.parse(raw))
    slug = slugify(slug or document["info"].get("title") or "")[:60]
    if not slug:
        raise documents.DocumentProblem("Give the app a slug: its title has none.")
    if taken(slug) or UploadedApp.objects.filter(slug=slug).exists():
        raise SlugTaken(f"There is already an app {slug!r}; give another slug.")
    return slug, document


def add_app(raw: bytes | str | dict, *, slug=None, source_url="", user=None):
    """The new `UploadedApp` for the document `raw` (see `checked_app`)."""
    slug, document = checked_app(raw, slug=slug)
    return UploadedApp.objects.create(
        slug=slug, document=document, source_url=source_url or "", created_by=user
    )
