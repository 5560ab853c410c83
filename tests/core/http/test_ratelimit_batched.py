"""The batched rate limit: exact in one process, few cache writes far from the
limit, and other processes' events seen within SYNC_SECONDS."""

from __future__ import annotations

import pytest

from core.http import ratelimit, ratelimit_batched
from core.http.ratelimit import Rate

RATE = Rate(1000, 60)
NOW = 6000.0  # the start of a window


@pytest.fixture
def writes(monkeypatch):
    """Every addition to the shared counter, as (key, amount)."""
    seen = []
    add = ratelimit.add

    def counting(key, timeout, by=1):
        seen.append((key, by))
        return add(key, timeout, by=by)

    monkeypatch.setattr(ratelimit_batched, "add", counting)
    return seen


def test_one_process_gets_exactly_the_limit(writes):
    answers = [ratelimit_batched.hit("k", RATE, now=NOW) for _ in range(1001)]

    assert answers[:1000] == [None] * 1000
    assert answers[1000] == pytest.approx(60.0)


def test_far_from_the_limit_the_cache_is_written_in_batches(writes):
    for _ in range(200):
        ratelimit_batched.hit("k", RATE, now=NOW)

    assert len(writes) < 30  # 200 without batching
    assert sum(amount for _, amount in writes) <= 200
    ratelimit_batched.hit("k", RATE, now=NOW + ratelimit_batched.SYNC_SECONDS)
    assert ratelimit.add("rl:k:6000", 61, by=0) == 201  # every event reached it


def test_near_the_limit_every_event_is_checked_against_the_cache(writes):
    for _ in range(990):
        ratelimit_batched.hit("k", RATE, now=NOW)
    writes.clear()

    for _ in range(10):
        ratelimit_batched.hit("k", RATE, now=NOW)

    assert len(writes) >= 9


def test_another_processs_events_throttle_this_one_after_a_sync(writes):
    ratelimit_batched.hit("k", RATE, now=NOW)
    ratelimit.add("rl:k:6000", 61, by=998)  # another process: 999 in all

    later = NOW + ratelimit_batched.SYNC_SECONDS
    assert ratelimit_batched.hit("k", RATE, now=later) is None  # the 1000th
    assert ratelimit_batched.hit("k", RATE, now=later) is not None


def test_what_processes_let_through_past_the_limit_is_bounded(monkeypatch):
    """Two processes take turns, 100 events each, within one SYNC_SECONDS:
    each sees the other's events only when it syncs."""
    tables = [{}, {}]  # each process's own counts
    admitted = 0
    for step in range(20):
        now = NOW + step * 0.01
        for table in tables:
            monkeypatch.setattr(ratelimit_batched, "_windows", table)
            for _ in range(100):
                admitted += ratelimit_batched.hit("k", RATE, now=now) is None

    # 4000 sent; the shared counter stops all but the limit plus a share of
    # the room each process saw.
    assert RATE.limit <= admitted <= RATE.limit * (1 + 2 / ratelimit_batched.SHARE)


def test_a_new_window_starts_from_zero(writes):
    for _ in range(1001):
        ratelimit_batched.hit("k", RATE, now=NOW)

    assert ratelimit_batched.hit("k", RATE, now=NOW + 60) is None
