"""Cron expressions for schedules: checked, described, stepped across DST."""

from __future__ import annotations

from datetime import UTC, datetime

from core.cron import cron_problem, describe, next_ticks, ticks


def utc(*parts) -> datetime:
    return datetime(*parts, tzinfo=UTC)


def test_five_fields_are_a_schedule_and_anything_else_is_refused():
    assert cron_problem("0 9 * * 1-5") is None
    assert "is not a cron expression" in cron_problem("61 * * * *")
    assert "is not a cron expression" in cron_problem("* * * * * *")  # seconds
    assert (
        cron_problem("")
        == "Give a cron expression, like */5 * * * * (every 5 minutes)."
    )


def test_seconds_are_allowed_only_where_tests_ask(settings):
    settings.SCHEDULE_ALLOW_SECONDS = True

    assert cron_problem("* * * * * *") is None


def test_the_sentence_names_the_zone():
    assert describe("0 9 * * 1-5", "Europe/Paris") == (
        "At 09:00, Monday through Friday, Europe/Paris"
    )


def test_next_ticks_are_in_the_schedules_zone():
    after = utc(2026, 11, 23, 12, 0)  # a Monday

    found = next_ticks("0 9 * * 1-5", "Europe/Paris", now=after)

    assert [t.isoformat() for t in found] == [
        "2026-11-24T09:00:00+01:00",
        "2026-11-25T09:00:00+01:00",
        "2026-11-26T09:00:00+01:00",
        "2026-11-27T09:00:00+01:00",
        "2026-11-30T09:00:00+01:00",
    ]


def test_a_time_skipped_by_spring_forward_fires_once_just_after_the_gap():
    # Europe/Paris skips 02:00-03:00 on 2026-03-29.
    fired = ticks(
        "30 2 * * *", "Europe/Paris", utc(2026, 3, 28, 12), utc(2026, 3, 30, 12)
    )

    assert [t.isoformat() for t in fired] == [
        "2026-03-29T01:00:00+00:00",  # 03:00 local, the first time after the gap
        "2026-03-30T00:30:00+00:00",  # 02:30 local again
    ]


def test_a_fixed_time_repeated_by_fall_back_fires_once():
    # Europe/Paris goes through 02:00-03:00 twice on 2026-10-25.
    fired = ticks(
        "30 2 * * *", "Europe/Paris", utc(2026, 10, 24, 12), utc(2026, 10, 26, 12)
    )

    assert [t.isoformat() for t in fired] == [
        "2026-10-25T00:30:00+00:00",  # the first 02:30 (+02:00) only
        "2026-10-26T01:30:00+00:00",
    ]


def test_an_interval_schedule_keeps_its_interval_through_fall_back():
    fired = ticks(
        "*/30 * * * *",
        "Europe/Paris",
        utc(2026, 10, 24, 23, 50),
        utc(2026, 10, 25, 2, 0),
    )

    # Every 30 minutes of real time, the repeated hour included.
    assert [t.strftime("%H:%M") for t in fired] == [
        "00:00",
        "00:30",
        "01:00",
        "01:30",
        "02:00",
    ]


def test_an_overlong_expression_is_refused_before_it_is_parsed():
    expression = ",".join(str(minute) for minute in range(60)) + " * * * *"

    assert cron_problem(expression) == "A cron expression is at most 120 characters."


def test_an_expression_that_never_fires_is_refused():
    # 30 February and 31 April never come; croniter accepts both as valid.
    assert "never fires" in cron_problem("0 0 30 2 *")
    assert "never fires" in cron_problem("0 0 31 4 *")
    assert cron_problem("0 0 29 2 *") is None  # every leap year is enough
