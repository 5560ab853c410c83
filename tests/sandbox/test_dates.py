"""The `dates` helpers (sandbox/harness_dates.js) as code and templates see them.

Time zones come from the vendored POSIX rules, QuickJS having no Intl: each
test below names a case a wrong offset table or a wrong DST switch would break.
"""

from __future__ import annotations

import re

import pytest

import sandbox

SCOPE = {"input": {"when": "2026-07-01T10:00:00Z"}, "prev": None, "results": {}}


def value(expression: str):
    return sandbox.evaluate([expression], SCOPE)[0]


def test_now_is_an_iso_instant_in_utc():
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", value("dates.now()"))


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (
            'dates.format(input.when, "YYYY-MM-DD HH:mm Z", "Europe/Paris")',
            "2026-07-01 12:00 +02:00",
        ),
        (
            'dates.format("2026-01-01T10:00:00Z", "HH:mm Z", "Europe/Paris")',
            "11:00 +01:00",
        ),
        ('dates.format("2026-07-15T00:00:00Z", "HH:mm", "Australia/Sydney")', "10:00"),
        ('dates.format("2026-01-15T00:00:00Z", "HH:mm", "Australia/Sydney")', "11:00"),
        ('dates.format("2026-07-15T00:00:00Z", "HH:mm", "Asia/Kolkata")', "05:30"),
        ('dates.format(input.when, "dddd D MMMM YYYY")', "Wednesday 1 July 2026"),
    ],
)
def test_it_formats_in_a_time_zone(expression, expected):
    assert value(expression) == expected


def test_summer_time_starts_at_one_in_the_morning_utc_in_london():
    before = value('dates.format("2026-03-29T00:59:59Z", "HH:mm:ss", "Europe/London")')
    after = value('dates.format("2026-03-29T01:00:00Z", "HH:mm:ss", "Europe/London")')
    assert (before, after) == ("00:59:59", "02:00:00")


def test_it_parses_a_wall_clock_time_with_a_format_in_a_zone():
    expression = (
        'dates.parse("06/12/2026 09:30", "DD/MM/YYYY HH:mm", "America/New_York")'
    )
    assert value(expression) == "2026-12-06T14:30:00.000Z"


def test_it_keeps_the_offset_a_text_carries():
    assert (
        value('dates.parse("2026-12-06T09:30:00+01:00")') == "2026-12-06T08:30:00.000Z"
    )


def test_adding_a_day_across_a_dst_change_keeps_the_wall_clock_time():
    moved = value('dates.add("2026-03-28T12:00:00Z", 1, "day", "Europe/Paris")')
    assert moved == "2026-03-29T11:00:00.000Z"  # 13:00 in Paris both days


def test_difference_counts_whole_units_or_fractions():
    assert value('dates.difference("2026-12-25", "2026-12-06", "day")') == 19
    assert (
        value('dates.difference("2026-01-01T12:00Z", "2026-01-01", "day", true)') == 0.5
    )


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        (
            'dates.format(input.when, "YYYY", "Mars/Base")',
            "Unknown time zone: Mars/Base",
        ),
        ('dates.parse("31/02/2026", "DD/MM/YYYY", "UTC")', "Not a date"),
        ('dates.format("soon")', "Not a date"),
    ],
)
def test_a_bad_zone_or_date_is_an_error_naming_it(expression, message):
    with pytest.raises(sandbox.SandboxError) as failure:
        value(expression)
    assert message in failure.value.message


def test_code_nodes_see_dates_too():
    source = 'return dates.format(input.when, "YYYY-MM-DD", "Pacific/Auckland")'
    assert sandbox.run_code(source, SCOPE).value == "2026-07-01"


def test_a_job_that_does_not_mention_dates_has_no_dates():
    assert sandbox.run_code("return typeof globalThis['da' + 'tes']", SCOPE).value == (
        "undefined"
    )


def test_a_helpers_error_names_no_line_of_the_harness():
    with pytest.raises(sandbox.SandboxError) as failure:
        sandbox.run_code(
            'return dates.format("2026-01-01", "YYYY", "Mars/Base")', SCOPE
        )

    assert failure.value.message == "RangeError: Unknown time zone: Mars/Base"
