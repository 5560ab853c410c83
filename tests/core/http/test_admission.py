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

from core.http.admission import QUEUED_AT_KEY, Slots, arrived_at, check_queue_wait
from core.http.errors import Throttled, Unavailable
from flows.engine.admission import admitted, caps_for


@pytest.fixture(autouse=True)
def admission_caps(settings):
    settings.SYNC_RUNS_PER_PROCESS = 3
    settings.SYNC_RUNS_PER_OWNER = 2
    settings.SYNC_RUNS_PER_ACCOUNT = 2
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


def test_a_caller_whose_young_run_ends_is_refused_at_once_by_a_cap_of_slow_runs():
    """The process is full (one run still young); the caller's workspace holds
    two slow runs. When the young run ends, the caller meets its workspace's
    cap of slow runs and is told so (429), not left waiting for a slot."""
    slots = Slots()
    hold(slots, "a", "2", slow_after=0)  # the caller's workspace: two slow runs
    hold(slots, "a", "3", slow_after=0)
    young = hold(slots, "b", "9", slow_after=60)  # fills the process cap of 3
    threading.Timer(0.05, slots.give_back, (young, caps_for("b", "9"))).start()
    started = time.monotonic()

    with pytest.raises(Throttled) as refused:
        slots.take(caps_for("a", "1"), slow_after=60, give_up_at=started + 5)

    assert time.monotonic() - started < 2  # not at the end of its 5 s
    assert str(refused.value.detail).startswith("This user already has 2 slow")
    assert slots.in_use == 2


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
