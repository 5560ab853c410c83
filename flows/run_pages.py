"""How run lists are paged (`/api/runs`, a flow's runs, the Runs page): what
a page costs among a million runs.

- **The first page is read before anything is counted.** When it is not full
  it holds every match, so its length is the count and no `COUNT` runs: a
  search for one order, a young flow, a narrow filter cost one query.
- **A count reads at most `cap` + 1 rows** (`count_capped` says when there
  are more, and the answer's `count` is the cap): a search's matches are
  counted to 200, ten pages (each match of a common text is a trigram
  recheck, flows/run_search.py); any other list's to 10,000, 500 pages, so
  that no list counts a million runs (an exact count of 900,000 took ~100 ms
  of PostgreSQL, bench/README.md "Finding runs").
"""

from __future__ import annotations

from functools import cached_property

from django.core.paginator import Paginator

LIST_COUNT_CAP = 10_000
SEARCH_COUNT_CAP = 200


class RunPaginator(Paginator):
    """Django's paginator with the count capped and skipped where a short
    first page already tells it."""

    cap = LIST_COUNT_CAP

    @cached_property
    def count(self) -> int:
        # Unordered: any cap + 1 matches will do (an index-only scan of one
        # flow's runs, no sort).
        return self.object_list.order_by()[: self.cap + 1].count()

    @property
    def count_capped(self) -> bool:
        return self.count > self.cap

    def validate_number(self, number):
        # Page 1 always exists (an empty list has an empty first page): no
        # count to check it.
        return 1 if str(number) == "1" else super().validate_number(number)

    def page(self, number):
        number = self.validate_number(number)
        if number != 1:
            return super().page(number)
        rows = list(self.object_list[: self.per_page])
        if len(rows) < self.per_page:
            self.__dict__["count"] = len(rows)  # every match: nothing to count
        return self._get_page(rows, 1, self)


class SearchPaginator(RunPaginator):
    cap = SEARCH_COUNT_CAP


def paginator_for(params) -> type[RunPaginator]:
    """The paginator for a list with these query parameters."""
    return SearchPaginator if params.get("q") else RunPaginator
