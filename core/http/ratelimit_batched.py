"""A rate limit counted in the process and added to the shared count in batches.

`ratelimit.hit` costs a cache round trip per event: 0.2 ms of a webhook's
CPU with Redis, a tenth of it (bench/README.md, "Webhook hot path, round 2").
For a busy limit most of those trips change nothing: the count is far from
the limit. So each process counts its own events and adds them to the shared
counter (one INCRBY) when either comes first:

- its unsent events pass 1/`SHARE` of the room it last saw left in the
  window, so near the limit every event is sent and checked, and a limit of a
  few events (a login throttle, `3/d`) is exact;
- `SYNC_SECONDS` have passed since it last did, so it sees the others' events.

Within one process the count is exact. Processes that share a limit may
together let through a little more than it between their syncs: at most
1/`SHARE` of the room each saw, per process (docs/webhooks.md).
"""

from __future__ import annotations

import logging
import threading
import time

from core.http.ratelimit import CACHE_ERRORS, Rate, add, window_start

logger = logging.getLogger("weir.ratelimit")

SHARE = 16
SYNC_SECONDS = 0.25
# Keys kept at most; past it the table starts again (each key then syncs anew).
MAX_KEYS = 10_000


class Window:
    __slots__ = ("start", "synced", "unsent", "synced_at")

    def __init__(self, start: int):
        self.start = start
        self.synced = 0  # the shared count, as last seen
        self.unsent = 0  # this process's events not added to it yet
        self.synced_at = float("-inf")


_lock = threading.Lock()
_windows: dict[str, Window] = {}


def hit(key: str, rate: Rate, *, now: float | None = None) -> float | None:
    """Count one event under `key`; seconds to wait when over the limit, else None.

    Fails open, as `ratelimit.hit` does, when the cache is away.
    """
    now = time.time() if now is None else now
    start = window_start(now, rate)
    with _lock:
        window = _windows.get(key)
        if window is None or window.start != start:
            if len(_windows) >= MAX_KEYS:
                _windows.clear()
            window = _windows[key] = Window(start)
        window.unsent += 1
        room = rate.limit - window.synced
        if window.unsent <= room // SHARE and now - window.synced_at < SYNC_SECONDS:
            return _wait(window.synced + window.unsent, rate, start, now)
        batch, window.unsent = window.unsent, 0
    try:
        count = add(f"rl:{key}:{start}", rate.window + 1, by=batch)
    except CACHE_ERRORS as error:
        logger.warning(
            "Cache unavailable, rate limit not applied to %s: %s", key, error
        )
        return None
    with _lock:
        window.synced = max(window.synced, count)
        window.synced_at = now
        return _wait(count + window.unsent, rate, start, now)


def _wait(count: int, rate: Rate, start: int, now: float) -> float | None:
    return start + rate.window - now if count > rate.limit else None


def forget() -> None:
    """Drop every process-local count (tests, after emptying the cache)."""
    with _lock:
        _windows.clear()
