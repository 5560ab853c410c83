"""`ETag` and `If-Match` for a versioned resource (a flow's version)."""

from __future__ import annotations

import pytest

from core.http.conditional import etag, parse_if_match


def test_the_etag_is_the_quoted_version():
    assert etag(3) == '"3"'


@pytest.mark.parametrize("header", ['"3"', 'W/"3"', "3", '  "3" '])
def test_it_reads_the_version_in_any_usual_spelling(header):
    assert parse_if_match(header) == 3


@pytest.mark.parametrize("header", ["", "*", "   "])
def test_no_header_or_a_star_matches_any_version(header):
    assert parse_if_match(header) is None


@pytest.mark.parametrize("header", ['"abc"', '"3", "4"', "-1"])
def test_an_unreadable_tag_matches_no_version(header):
    assert parse_if_match(header) == -1
