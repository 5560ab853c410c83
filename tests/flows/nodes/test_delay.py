"""The delay node on its own: it sleeps, stops at a cancel, keeps to the deadline."""

from __future__ import annotations

import time

import pytest

from flows.nodes import NodeContext, NodeError, NodeTimeout
from flows.nodes.delay import DelayNode


class CancelledAfter:
    """Stands in for the engine's ChildRuns: the run is cancelled after `seconds`."""

    def __init__(self, seconds: float):
        self.at = time.monotonic() + seconds

    def cancelled(self) -> bool:
        return time.monotonic() >= self.at


def context(seconds_left: float, calls=None) -> NodeContext:
    return NodeContext(
        owner_id=None,
        input={},
        prev={"n": 1},
        results={},
        deadline=time.monotonic() + seconds_left,
        calls=calls,
    )


def test_a_delay_passes_its_input_on():
    assert DelayNode().run({"ms": 10}, context(5)) == {"n": 1}


@pytest.mark.timing
def test_a_cancel_stops_the_delay_at_once():
    started = time.monotonic()

    with pytest.raises(NodeError) as stopped:
        DelayNode().run({"ms": 8000}, context(30, CancelledAfter(0.2)))

    assert time.monotonic() - started < 1.0
    assert stopped.value.code == "cancelled"
    assert "during the delay, after 2" in stopped.value.message


@pytest.mark.timing
def test_a_delay_past_the_deadline_times_out_at_the_deadline():
    started = time.monotonic()

    with pytest.raises(NodeTimeout):
        DelayNode().run({"ms": 5000}, context(0.3))

    assert time.monotonic() - started < 1.0
