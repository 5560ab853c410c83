"""Admission control: per-process, per-owner and per-flow caps, and the queue wait.

The endpoints that use it are tested with it in their own modules
(tests/webhooks/test_views_admission.py, tests/flows/api/test_admission.py,
tests/agents/test_api_chat_admission.py); a real gunicorn under load in
test_admission_gunicorn.py.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.test import RequestFactory

from config.http import admission
from config.http.admission import (
    QUEUED_AT_KEY,
    Slots,
    admitted,
    arrived_at,
    caps_for,
    check_queue_wait,
)
from config.http.errors import Throttled, Unavailable


@pytest.fixture(autouse=True)
def caps(settings):
    settings.SYNC_RUNS_PER_PROCESS = 3
    settings.SYNC_RUNS_PER_OWNER = 2
    settings.SYNC_RUNS_PER_FLOW = 1
    settings.REQUEST_QUEUE_TIMEOUT_SECONDS = 5
    settings.ADMISSION_RETRY_AFTER_SECONDS = 2
    settings.ADMISSION_SLOW_SECONDS = 0  # what holds a slot is slow at once


def request(**meta):
    return RequestFactory().post("/api/webhooks/x", **meta)


def hold(slots, owner, flow=None, slow_after=0.0):
    return slots.take(caps_for(owner, flow), slow_after=slow_after)


def test_work_beyond_the_process_cap_is_refused_with_503():
    slots = Slots()
    for owner in ("a", "b", "c"):
        hold(slots, owner)

    with pytest.raises(Unavailable) as refused:
        hold(slots, "d")

    assert refused.value.status_code == 503
    assert refused.value.error_code == "unavailable"
    assert refused.value.headers == {"Retry-After": "2"}
    assert slots.in_use == 3


def test_work_beyond_a_keys_cap_is_throttled_and_takes_nothing():
    slots = Slots()
    hold(slots, "a", "1")

    with pytest.raises(Throttled) as refused:
        hold(slots, "a", "1")

    assert refused.value.status_code == 429
    assert refused.value.headers == {"Retry-After": "2"}
    assert str(refused.value.detail).startswith("This flow already has 1 slow runs")
    assert slots.in_use == 1
    hold(slots, "a", "2")
    assert slots.in_use == 2


def test_a_slot_given_back_can_be_taken_again():
    slots = Slots()
    ticket = hold(slots, "a", "1")
    slots.give_back(ticket, caps_for("a", "1"))

    hold(slots, "a", "1")

    assert slots.in_use == 1


@pytest.mark.timing
def test_a_caller_meeting_a_young_run_waits_for_its_slot_instead_of_a_refusal():
    slots = Slots()
    ticket = hold(slots, "a", "1", slow_after=5)
    threading.Timer(0.05, slots.give_back, (ticket, caps_for("a", "1"))).start()
    started = time.monotonic()

    hold(slots, "a", "1", slow_after=5)

    assert 0.04 < time.monotonic() - started < 2
    assert slots.in_use == 1


@pytest.mark.timing
def test_a_caller_is_refused_once_the_runs_it_waits_for_have_turned_slow():
    slots = Slots()
    hold(slots, "a", "1", slow_after=0.2)
    started = time.monotonic()

    with pytest.raises(Throttled):
        hold(slots, "a", "1", slow_after=0.2)

    assert 0.15 < time.monotonic() - started < 2
    assert slots.in_use == 1


@pytest.mark.timing
def test_a_caller_waits_no_longer_than_it_was_given():
    slots = Slots()
    hold(slots, "a", "1", slow_after=60)
    started = time.monotonic()

    with pytest.raises(Unavailable) as refused:
        slots.take(caps_for("a", "1"), slow_after=60, give_up_at=time.monotonic() + 0.1)

    assert time.monotonic() - started < 2
    assert "waited too long" in str(refused.value.detail)
    assert slots.in_use == 1


def test_admitted_gives_the_slot_back_when_the_work_fails():
    slots = Slots()

    with (
        pytest.raises(RuntimeError),
        admitted(request(), owner_id=1, flow_id="f", slots=slots),
    ):
        assert slots.in_use == 1
        raise RuntimeError("the run blew up")

    assert slots.in_use == 0
    with admitted(request(), owner_id=1, flow_id="f", slots=slots):
        assert slots.in_use == 1


def test_the_owner_cap_holds_across_the_owners_flows():
    slots = Slots()
    first = admitted(request(), owner_id=1, flow_id="f1", slots=slots)
    second = admitted(request(), owner_id=1, flow_id="f2", slots=slots)

    with first, second:
        third = admitted(request(), owner_id=1, flow_id="f3", slots=slots)
        with pytest.raises(Throttled) as refused:
            third.__enter__()
        held = slots.in_use

    assert str(refused.value.detail).startswith("This user already has 2 slow")
    assert held == 2
    assert slots.in_use == 0


def test_work_without_a_flow_counts_against_the_owner_only():
    slots = Slots()
    first = admitted(request(), owner_id=1, slots=slots)
    second = admitted(request(), owner_id=1, slots=slots)

    with first, second, pytest.raises(Throttled):
        admitted(request(), owner_id=1, slots=slots).__enter__()


def test_a_request_stamped_by_the_server_past_the_wait_is_refused():
    stale = request(**{QUEUED_AT_KEY: time.time() - 6})

    with pytest.raises(Unavailable) as refused:
        check_queue_wait(stale)

    assert refused.value.headers == {"Retry-After": "2"}
    assert "waited 6." in str(refused.value.detail)


def test_a_request_that_waited_less_passes():
    check_queue_wait(request(**{QUEUED_AT_KEY: time.time() - 4}))
    check_queue_wait(request())  # nobody recorded its arrival


@pytest.mark.parametrize(
    "header, arrival",
    [
        ("t=1700000000.250", 1700000000.25),  # nginx: t=${msec}
        ("1700000000250", 1700000000.25),  # milliseconds (Heroku)
        ("t=1700000000250000", 1700000000.25),  # microseconds
        ("1700000000", 1700000000.0),
    ],
)
def test_x_request_start_is_read_in_seconds_milliseconds_or_microseconds(
    header, arrival
):
    assert arrived_at(request(HTTP_X_REQUEST_START=header)) == pytest.approx(arrival)


def test_a_front_ends_x_request_start_past_the_wait_is_refused():
    stale = request(HTTP_X_REQUEST_START=f"t={time.time() - 10:.3f}")

    with pytest.raises(Unavailable):
        check_queue_wait(stale)


def test_the_earlier_of_header_and_stamp_counts():
    now = time.time()
    both = request(HTTP_X_REQUEST_START=f"t={now - 10:.3f}", **{QUEUED_AT_KEY: now})

    assert arrived_at(both) == pytest.approx(now - 10, abs=0.01)


def test_a_garbled_x_request_start_is_ignored():
    assert arrived_at(request(HTTP_X_REQUEST_START="yesterday")) is None
    check_queue_wait(request(HTTP_X_REQUEST_START="yesterday"))


def test_a_refusal_for_waiting_takes_no_slot():
    slots = Slots()

    with (
        pytest.raises(Unavailable),
        admitted(request(**{QUEUED_AT_KEY: time.time() - 60}), owner_id=1, slots=slots),
    ):
        pass

    assert slots.in_use == 0


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
