"""Cron expressions for the schedule trigger: checked, described, stepped.

`croniter` parses and steps the expressions (docs/decisions.md); this module
adds what a schedule needs around it: the IANA zone, the 5-field rule, a plain
sentence (`cron-descriptor`) and Vixie cron's DST rules:

- a wall-clock time that does not exist (spring forward: 02:30 in
  Europe/Paris on the last Sunday of March) fires at the first time after the
  gap (03:00), once;
- a wall-clock time that happens twice (fall back) fires once for a schedule
  with a fixed hour (the first occurrence), and at every occurrence for one
  whose hour field is a wildcard ("*/30 * * * *" still fires every 30 minutes
  of real time).
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from cron_descriptor import Options, get_description
from croniter import CroniterError, croniter
from django.conf import settings

MAX_LENGTH = 120
# An expression must fire within this many years of any start: 29 February
# (every 4 years, 8 across a skipped leap year like 2100) passes, 30 February
# never fires, and would make croniter raise at every step.
FIRES_WITHIN_YEARS = 8


def zone_of(name) -> ZoneInfo | None:
    if not isinstance(name, str) or not name or len(name) > 64:
        return None
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return None


def cron_problem(expression) -> str | None:
    """Why `expression` is not a usable schedule, or None."""
    if not isinstance(expression, str) or not expression.strip():
        return "Give a cron expression, like */5 * * * * (every 5 minutes)."
    if len(expression) > MAX_LENGTH:  # long lists of values cost parse time
        return f"A cron expression is at most {MAX_LENGTH} characters."
    fields = expression.split()
    # A 6th (seconds) field only where tests allow it: a per-second schedule.
    allowed = (5, 6) if settings.SCHEDULE_ALLOW_SECONDS else (5,)
    if len(fields) not in allowed or not croniter.is_valid(expression):
        return (
            f"{expression.strip()!r} is not a cron expression: give 5 fields "
            "(minute hour day-of-month month day-of-week), like 0 9 * * 1-5."
        )
    if not fires(expression):
        return (
            f"{expression.strip()!r} never fires: no such date comes within "
            f"{FIRES_WITHIN_YEARS} years (30 February, 31 April, ...)."
        )
    return None


def fires(expression: str) -> bool:
    """Whether a valid expression has a next tick within FIRES_WITHIN_YEARS,
    from a fixed start (the first day of a year after a leap year's February):
    the same answer at every save, and bounded work (croniter gives up)."""
    try:
        croniter(
            expression,
            datetime(2025, 1, 1, tzinfo=UTC),
            max_years_between_matches=FIRES_WITHIN_YEARS,
        ).get_next(datetime)
    except CroniterError:
        return False
    return True


def describe(expression: str, zone: str) -> str:
    """ "At 09:00, Monday through Friday, Europe/Paris"."""
    options = Options()
    options.use_24hour_time_format = True
    try:
        sentence = get_description(expression, options)
    except Exception:  # the library's own errors; the expression was checked
        sentence = expression
    return f"{sentence}, {zone}"


def fixed_hour(expression: str) -> bool:
    fields = expression.split()
    hour = fields[2] if len(fields) == 6 else fields[1]
    return not hour.startswith("*")


def ticks(expression: str, zone: str, after: datetime, until: datetime, limit=1000):
    """Fire times in (after, until], as aware UTC datetimes, DST rules applied."""
    local = ZoneInfo(zone)
    steps = croniter(expression, after.astimezone(local))
    once_a_day = fixed_hour(expression)
    seen_wall_clock = set()
    found = []
    while len(found) < limit:
        tick = steps.get_next(datetime)
        if tick.astimezone(UTC) > until:
            break
        wall = tick.replace(tzinfo=None)
        if once_a_day and wall in seen_wall_clock:
            continue  # the repeated hour of a fall-back night: fired already
        seen_wall_clock.add(wall)
        found.append(tick.astimezone(UTC))
    return found


def next_ticks(expression: str, zone: str, count: int = 5, now=None) -> list[datetime]:
    """The next `count` fire times after `now`, in the schedule's zone."""
    now = now or datetime.now(UTC)
    local = ZoneInfo(zone)
    steps = croniter(expression, now.astimezone(local))
    found, seen = [], set()
    once_a_day = fixed_hour(expression)
    while len(found) < count:
        tick = steps.get_next(datetime)
        wall = tick.replace(tzinfo=None)
        if once_a_day and wall in seen:
            continue
        seen.add(wall)
        found.append(tick)
    return found


def previous_tick(expression: str, zone: str, before: datetime) -> datetime:
    """The last fire time at or before `before`, as an aware UTC datetime."""
    steps = croniter(expression, before.astimezone(ZoneInfo(zone)))
    return steps.get_prev(datetime).astimezone(UTC)
