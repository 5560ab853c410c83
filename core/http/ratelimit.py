"""A fixed-window rate limiter on Django's cache.

With `REDIS_URL` set the cache is shared, so the limit holds across processes and
machines; with the local-memory cache it holds per process.
"""

from __future__ import annotations

import contextlib
import logging
import time
import weakref
from dataclasses import dataclass

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger("weir.ratelimit")

# What a cache that is away raises: redis-py's errors (connection refused,
# timeouts) and the socket's own. Callers that can do without the cache catch
# these and go on (fail open).
CACHE_ERRORS = (RedisError, OSError)

PERIODS = {
    "s": 1,
    "sec": 1,
    "second": 1,
    "m": 60,
    "min": 60,
    "minute": 60,
    "h": 3600,
    "hour": 3600,
    "d": 86400,
    "day": 86400,
}


@dataclass(frozen=True)
class Rate:
    limit: int
    window: int

    @classmethod
    def parse(cls, text: str) -> Rate:
        """`"600/min"` → Rate(600, 60). Also `"5/10s"` for five per ten seconds."""
        count, _, period = text.strip().partition("/")
        digits = "".join(ch for ch in period if ch.isdigit())
        unit = period[len(digits) :].strip().lower()
        if unit not in PERIODS or not count.strip().isdigit():
            raise ValueError(f"Rate {text!r} is not like '600/min'.")
        return cls(int(count), int(digits or 1) * PERIODS[unit])


# One redis-py client per cache backend object (Django makes one backend per
# thread). `get_client` builds a new client on every call, and redis-py's client
# constructor fills a table of ~170 response callbacks: a third of the limiter's
# CPU before this cache. Clients are thread-safe and share the backend's pool.
_redis_clients: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _redis_client(backend: RedisCache):
    client = _redis_clients.get(backend)
    if client is None:
        # `_cache` is the backend's client wrapper (stable since Django 4.0); it
        # hands out a client on the backend's own pool (the write server's).
        client = _redis_clients[backend] = backend._cache.get_client(write=True)
    return client


def add(cache_key: str, timeout: int, by: int = 1) -> int:
    """Add `by` to the counter under `cache_key` (made with `timeout`); the new count.

    On Redis this is one round trip (SET NX with the expiry, then INCR, which
    keeps it, in one pipeline) instead of the three that Django's `add` + `incr`
    cost; the webhook benchmark found the limiter taking a sixth of a webhook's
    time. Other caches use Django's API.
    """
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        key = backend.make_and_validate_key(cache_key)
        with _redis_client(backend).pipeline(transaction=False) as pipe:
            _, count = pipe.set(key, 0, ex=timeout, nx=True).incr(key, by).execute()
        return count
    if cache.add(cache_key, by, timeout=timeout):
        return by
    try:
        return cache.incr(cache_key, by)
    except ValueError:  # expired between add and incr
        cache.add(cache_key, by, timeout=timeout)
        return by


def window_start(now: float, rate: Rate) -> int:
    return int(now // rate.window) * rate.window


def hit(key: str, rate: Rate, *, now: float | None = None) -> float | None:
    """Count one event under `key`; seconds to wait when over the limit, else None.

    Fails open: when the cache is away (Redis stopped or hung past its timeout)
    the event is let through and a warning logged; a limit is not worth an
    outage.
    """
    now = time.time() if now is None else now
    start = window_start(now, rate)
    try:
        count = add(f"rl:{key}:{start}", rate.window + 1)
    except CACHE_ERRORS as error:
        logger.warning(
            "Cache unavailable, rate limit not applied to %s: %s", key, error
        )
        return None
    if count > rate.limit:
        return start + rate.window - now
    return None


def undo(key: str, rate: Rate, *, now: float | None = None) -> None:
    """Take back one event counted by `hit` in the current window."""
    now = time.time() if now is None else now
    start = window_start(now, rate)
    # ValueError: the window ended meanwhile, so there is nothing to take back;
    # a cache that is away has nothing to take back either.
    with contextlib.suppress(ValueError, *CACHE_ERRORS):
        cache.decr(f"rl:{key}:{start}")
