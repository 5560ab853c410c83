"""What the engine's NOTIFY tests share: a listening wake-up and a timed wait on it."""

from __future__ import annotations

import time

import pytest

from flows.engine.queue_listener import Wakeup


@pytest.fixture
def wakeup():
    waiting = Wakeup()
    waiting.wait(0)  # connects and listens
    assert waiting.listening
    yield waiting
    waiting.close()


def timed_wait(wakeup, seconds) -> float:
    """How long `wakeup` waited, at most `seconds`, for a NOTIFY."""
    started = time.monotonic()
    wakeup.wait(seconds)
    return time.monotonic() - started
