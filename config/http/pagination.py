"""The API's one pagination: 20 to a page, `?page=2`, `?page_size=` up to 100.

Used by every paginated list (a flow's runs, conversations), so clients page
through all of them the same way.
"""

from __future__ import annotations

from rest_framework.pagination import PageNumberPagination


class PagePagination(PageNumberPagination):
    page_size = 20
    page_size_query_param = "page_size"
    max_page_size = 100
