"""The suite's own helpers for real processes: one Redis database per xdist worker."""

from __future__ import annotations

import pytest

from tests.processes import worker_redis_url


def test_without_xdist_the_suite_uses_the_database_it_is_given():
    assert worker_redis_url("redis://127.0.0.1:6379/13", None) == (
        "redis://127.0.0.1:6379/13"
    )


def test_each_xdist_worker_gets_its_own_database_below_the_given_one():
    base = "redis://127.0.0.1:6379/13"

    urls = [worker_redis_url(base, f"gw{number}") for number in range(4)]

    assert urls == [
        "redis://127.0.0.1:6379/13",
        "redis://127.0.0.1:6379/12",
        "redis://127.0.0.1:6379/11",
        "redis://127.0.0.1:6379/10",
    ]


def test_a_worker_with_no_database_left_is_refused():
    with pytest.raises(RuntimeError, match="gw2"):
        worker_redis_url("redis://127.0.0.1:6379/1", "gw2")


def test_the_password_and_host_are_kept():
    assert worker_redis_url("redis://:secret@redis.internal:6380/5", "gw1") == (
        "redis://:secret@redis.internal:6380/4"
    )
