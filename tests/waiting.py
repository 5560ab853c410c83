"""Waiting in tests: for a condition, never for a fixed time.

A loaded machine (CI, eight suites on two cores) is slower, not wrong: a test
that sleeps "long enough" fails there, and wastes the time on an idle one.
`wait_until` polls what the test needs instead. A wait for something *not*
to happen (nothing stored late, a cache not emptied) still sleeps, and says so.
"""

from __future__ import annotations

import time


def wait_until(predicate, timeout: float = 10.0, interval: float = 0.02):
    """Poll `predicate` until it returns something truthy, and return that
    value; after `timeout` seconds, its last (falsy) value."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)
