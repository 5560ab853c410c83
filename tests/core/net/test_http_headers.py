"""Retry-After and Link rel="next", read as servers send them."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from core.net.http_headers import next_link, retry_after_seconds

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Fri, 02 Jan 2026 03:04:35 GMT", 30.0),
        ("Friday, 02-Jan-26 03:05:05 GMT", 60.0),
        ("Thu, 01 Jan 2026 00:00:00 GMT", 0.0),  # already past
        (None, None),
        ("", None),
        ("-5", None),
        ("1.5", None),
        ("soon", None),
    ],
)
def test_retry_after_is_seconds_or_an_http_date(value, seconds):
    assert retry_after_seconds(value, now=NOW) == seconds


BASE = "https://api.example.com/v1/items?page=1"


@pytest.mark.parametrize(
    ("header", "target"),
    [
        ('<https://api.example.com/v1/items?page=2>; rel="next"', BASE[:-1] + "2"),
        ("</v1/items?page=2>; rel=next", BASE[:-1] + "2"),
        ('<items?page=2>; rel="next"', BASE[:-1] + "2"),
        (
            '</x?page=9>; rel="last", </x?page=2>; rel="next"',
            "https://api.example.com/x?page=2",
        ),
        (
            '</x?page=2>; title="a; b"; REL="prefetch Next"',
            "https://api.example.com/x?page=2",
        ),
        ('</x?page=1>; rel="prev", </x?page=9>; rel="last"', None),
        ('</x?page=2>; rel="nextpage"', None),
        ("garbage", None),
        (None, None),
    ],
)
def test_the_next_link_is_the_one_whose_rel_names_next(header, target):
    assert next_link(header, BASE) == target
