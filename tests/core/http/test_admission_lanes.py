"""Admission's fast lanes (a flow known fast runs side by side), the penalty
that keeps a flow made slow at will from filling the process, and the order
in which waiting callers get a freed slot. The caps and `hold` are
test_admission.py's."""

from __future__ import annotations

import threading
import time

import pytest

from core.http import admission
from core.http.admission import Slots
from core.http.errors import Throttled, Unavailable
from flows.engine.admission import caps_for
from tests.core.http.test_admission import admission_caps, hold  # noqa: F401


def ended_fast(slots, owner, flow):
    """One run of the flow that began and ended before it turned slow."""
    caps = caps_for(owner, flow)
    slots.give_back(slots.take(caps, slow_after=60), caps)


def waits_its_turn(slots, owner, flow) -> bool:
    """Whether a caller of `flow` finds its slots held by young runs and waits
    (told to give up after 50 ms) rather than being admitted at once."""
    try:
        slots.take(
            caps_for(owner, flow), slow_after=60, give_up_at=time.monotonic() + 0.05
        )
    except Unavailable as refused:
        return "waited too long" in str(refused.detail)
    return False


def test_a_flow_whose_last_run_was_fast_runs_beside_its_young_runs():
    slots = Slots()
    ended_fast(slots, "a", "1")

    for _ in range(3):  # the flow's cap is 1 and its owner's 2
        hold(slots, "a", "1", slow_after=60)

    assert slots.in_use == 3
    # The process cap still counts every run: pages keep their threads.
    assert waits_its_turn(slots, "a", "1")
    assert slots.in_use == 3


def test_a_flow_never_seen_waits_its_turn():
    slots = Slots()
    hold(slots, "a", "1", slow_after=60)

    assert waits_its_turn(slots, "a", "1")
    assert slots.in_use == 1


def test_a_fast_flows_run_that_turns_slow_counts_and_refuses_at_once():
    slots = Slots()
    ended_fast(slots, "a", "1")
    hold(slots, "a", "1", slow_after=0)  # running past the threshold already
    started = time.monotonic()

    with pytest.raises(Throttled) as refused:
        hold(slots, "a", "1", slow_after=60)

    assert time.monotonic() - started < 1
    assert str(refused.value.detail).startswith("This flow already has 1 slow runs")
    assert slots.in_use == 1


def test_a_run_that_ended_slow_makes_its_flow_wait_its_turn_again():
    slots = Slots()
    ended_fast(slots, "a", "1")
    caps = caps_for("a", "1")
    slots.give_back(slots.take(caps, slow_after=0), caps)  # ended slow
    hold(slots, "a", "1", slow_after=60)

    assert waits_its_turn(slots, "a", "1")


def test_a_fast_flow_still_meets_its_owners_slow_runs():
    slots = Slots()
    ended_fast(slots, "a", "1")
    hold(slots, "a", "2", slow_after=0)  # slow runs of two other flows
    hold(slots, "a", "3", slow_after=0)

    with pytest.raises(Throttled) as refused:
        hold(slots, "a", "1", slow_after=60)

    assert str(refused.value.detail).startswith("This user already has 2 slow")


def test_the_process_remembers_a_bounded_number_of_flows(monkeypatch, settings):
    settings.SYNC_RUNS_PER_PROCESS = 5
    monkeypatch.setattr(admission, "LANES_KEPT", 3)
    slots = Slots()
    for flow in "12345":
        ended_fast(slots, "a", flow)

    for _ in range(2):
        hold(slots, "a", "5", slow_after=60)  # still known fast: side by side
    hold(slots, "b", "1", slow_after=60)

    assert slots.in_use == 3
    assert waits_its_turn(slots, "b", "1")  # forgotten: as if never seen


class Clock:
    """The admission module's monotonic clock, `offset` seconds ahead of the real
    one (waits still run on the real clock)."""

    def __init__(self, monkeypatch):
        self.offset = 0.0
        real = time.monotonic
        fake = type("FakeTime", (), {})()
        fake.monotonic = lambda: real() + self.offset
        fake.time = time.time
        monkeypatch.setattr(admission, "time", fake)

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def test_one_fast_call_does_not_let_a_flow_take_the_process_with_slow_runs_again(
    monkeypatch, settings
):
    # The default caps with 4 threads: 2 per process, 1 per workspace and flow.
    settings.SYNC_RUNS_PER_PROCESS = 2
    settings.SYNC_RUNS_PER_OWNER = 1
    clock = Clock(monkeypatch)
    slots = Slots()
    caps = caps_for("a", "1")
    # The documented hole: a flow known fast whose calls turn slow holds the
    # whole process (every other workspace gets 503) for one run's length.
    ended_fast(slots, "a", "1")
    burst = [hold(slots, "a", "1", slow_after=0.5) for _ in range(2)]
    clock.advance(30)  # both ran to the run timeout
    with pytest.raises(Unavailable):
        hold(slots, "b", "9")
    for ticket in burst:
        slots.give_back(ticket, caps)

    # The caller re-arms the flow with one quick call and sends the next burst:
    # it meets the flow's cap, and another workspace still finds a slot.
    ended_fast(slots, "a", "1")
    hold(slots, "a", "1", slow_after=0.5)

    assert waits_its_turn(slots, "a", "1")
    hold(slots, "b", "9")
    assert slots.in_use == 2


def test_a_flow_that_ran_slow_runs_side_by_side_again_once_its_penalty_is_over(
    monkeypatch,
):
    clock = Clock(monkeypatch)
    slots = Slots()
    caps = caps_for("a", "1")
    ended_fast(slots, "a", "1")
    burst = [hold(slots, "a", "1", slow_after=0.5) for _ in range(2)]
    clock.advance(2.5)  # ran 2 s past the threshold
    for ticket in burst:
        slots.give_back(ticket, caps)
    ended_fast(slots, "a", "1")
    clock.advance(2 * admission.STRICT_PER_SLOW_SECOND + 0.1)

    hold(slots, "a", "1", slow_after=60)
    hold(slots, "a", "1", slow_after=60)

    assert slots.in_use == 2


def test_a_slow_burst_past_the_caps_is_not_repeated_with_another_flow_or_workspace(
    monkeypatch, settings
):
    settings.SYNC_RUNS_PER_PROCESS = 2
    settings.SYNC_RUNS_PER_OWNER = 1
    clock = Clock(monkeypatch)
    slots = Slots()
    for owner, flow in (("a", "1"), ("c", "2")):
        ended_fast(slots, owner, flow)  # both known fast
    burst = [hold(slots, "a", "1", slow_after=0.5) for _ in range(2)]
    clock.advance(30)
    for ticket in burst:
        slots.give_back(ticket, caps_for("a", "1"))

    # A caller holding a second workspace's flow in reserve meets its caps too.
    hold(slots, "c", "2", slow_after=0.5)

    assert waits_its_turn(slots, "c", "2")
    hold(slots, "b", "9")
    assert slots.in_use == 2


def test_a_slow_run_within_its_caps_leaves_other_fast_flows_side_by_side(monkeypatch):
    clock = Clock(monkeypatch)
    slots = Slots()
    ended_fast(slots, "a", "1")
    ended_fast(slots, "b", "2")
    slow = hold(slots, "a", "1", slow_after=0.5)  # its flow's one slot: no waiver
    clock.advance(30)
    slots.give_back(slow, caps_for("a", "1"))

    hold(slots, "b", "2", slow_after=60)
    hold(slots, "b", "2", slow_after=60)

    assert slots.in_use == 2


def test_a_freed_slot_goes_to_the_waiting_owner_holding_fewest_not_the_flood():
    """One workspace's fast flow fills the process and queues more callers behind
    it; another workspace's caller, arriving last, gets the next free slot: a
    flood waits behind its own runs, not in front of everyone else's."""
    slots = Slots()
    ended_fast(slots, "flood", "f")
    flood = caps_for("flood", "f")
    held = [slots.take(flood, slow_after=60) for _ in range(3)]  # the process cap
    admitted_in_order: list[str] = []

    def caller(owner, flow):
        caps = caps_for(owner, flow)
        ticket = slots.take(caps, slow_after=60, give_up_at=time.monotonic() + 5)
        admitted_in_order.append(owner)
        slots.give_back(ticket, caps)  # a run of no time at all

    callers = [threading.Thread(target=caller, args=("flood", "f")) for _ in range(6)]
    callers.append(threading.Thread(target=caller, args=("other", "g")))
    for thread in callers:
        thread.start()
        time.sleep(0.02)  # each waits before the next arrives: the other one last

    slots.give_back(held.pop(), flood)
    time.sleep(0.2)  # the one free slot is taken
    for ticket in held:
        slots.give_back(ticket, flood)
    for thread in callers:
        thread.join(5)

    assert admitted_in_order[0] == "other"
    assert sorted(admitted_in_order) == ["flood"] * 6 + ["other"]
