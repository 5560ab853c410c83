"""Failed sign-in counts in the database: `hit` and `undo` as `core.http.ratelimit`'s.

Used by `login_throttle` when no `REDIS_URL` is set (`make run`): the cache is
then each process's own memory, and the limit would hold once per web process.
The count is one atomic upsert (`INSERT ... ON CONFLICT DO UPDATE ... RETURNING`,
PostgreSQL and SQLite 3.35+ alike), so parallel guesses in any number of
processes cannot slip past it. Each hit also deletes the windows that have
ended, through the index on `expires_at`; sign-ins are rare enough for that.
"""

from __future__ import annotations

import hashlib
import time
from datetime import UTC, datetime

from django.db import connection
from django.db.models import F

from accounts.models import SignInFailureWindow
from core.http.ratelimit import Rate, window_start


def _window_key(key: str, rate: Rate, now: float) -> tuple[str, int]:
    """The row's key for `key` in the window holding `now`, and the window's start."""
    start = window_start(now, rate)
    return hashlib.sha256(f"{key}:{start}".encode()).hexdigest(), start


def hit(key: str, rate: Rate, *, now: float | None = None) -> float | None:
    """Count one event under `key`; seconds to wait when over the limit, else None."""
    now = time.time() if now is None else now
    row_key, start = _window_key(key, rate, now)
    expires = datetime.fromtimestamp(start + rate.window, UTC)
    table, key_, count_, expires_at = (
        connection.ops.quote_name(name)
        for name in (SignInFailureWindow._meta.db_table, "key", "count", "expires_at")
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} WHERE {expires_at} < %s",
            [datetime.fromtimestamp(now, UTC)],
        )
        cursor.execute(
            f"INSERT INTO {table} ({key_}, {count_}, {expires_at}) VALUES (%s, 1, %s) "
            f"ON CONFLICT ({key_}) DO UPDATE SET {count_} = {table}.{count_} + 1 "
            f"RETURNING {count_}",
            [row_key, expires],
        )
        (count,) = cursor.fetchone()
    if count > rate.limit:
        return start + rate.window - now
    return None


def undo(key: str, rate: Rate, *, now: float | None = None) -> None:
    """Take back one event counted by `hit` in the current window."""
    now = time.time() if now is None else now
    row_key, _ = _window_key(key, rate, now)
    SignInFailureWindow.objects.filter(key=row_key, count__gt=0).update(
        count=F("count") - 1
    )
