"""The API's paginations: pages of 20 (`?page=2`, `?page_size=` up to 100) for
every list a person pages through (a flow's runs, conversations, versions), and
a cursor for the audit log, which grows while it is read and is read by programs
that follow `next` to the end.
"""

from __future__ import annotations

from rest_framework.pagination import CursorPagination, PageNumberPagination


class PagePagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100


class NewestFirstCursor(CursorPagination):
    """50 to a page, newest first by `at`; `next` and `previous` are URLs with an
    opaque `cursor`, stable while new rows arrive (no page shifts under a reader)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200
    ordering = ("-at", "-id")
