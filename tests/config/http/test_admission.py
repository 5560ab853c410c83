"""Admission control: per-process, per-owner and per-flow caps, and the queue wait.

The endpoints that use it are tested with it in their own modules
(tests/webhooks/test_views_admission.py, tests/flows/api/test_admission.py,
tests/agents/test_api_chat_admission.py); a real gunicorn under load in
test_admission_gunicorn.py.
"""

from __future__ import annotations

import time

import pytest
from django.test import RequestFactory

from config.http.admission import (
    QUEUED_AT_KEY,
    Slots,
    admitted,
    arrived_at,
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


def request(**meta):
    return RequestFactory().post("/api/webhooks/x", **meta)


def test_work_beyond_the_process_cap_is_refused_with_503():
    slots = Slots()
    for owner in ("a", "b", "c"):
        slots.take([(f"owner:{owner}", 2, "This user")])

    with pytest.raises(Unavailable) as refused:
        slots.take([("owner:d", 2, "This user")])

    assert refused.value.status_code == 503
    assert refused.value.error_code == "unavailable"
    assert refused.value.headers == {"Retry-After": "2"}
    assert slots.in_use == 3


def test_work_beyond_a_keys_cap_is_throttled_and_takes_nothing():
    slots = Slots()
    slots.take([("owner:a", 2, "This user"), ("flow:1", 1, "This flow")])

    with pytest.raises(Throttled) as refused:
        slots.take([("owner:a", 2, "This user"), ("flow:1", 1, "This flow")])

    assert refused.value.status_code == 429
    assert refused.value.headers == {"Retry-After": "2"}
    assert str(refused.value.detail).startswith("This flow already has 1 runs")
    assert slots.in_use == 1
    slots.take([("owner:a", 2, "This user"), ("flow:2", 1, "This flow")])
    assert slots.in_use == 2


def test_a_slot_given_back_can_be_taken_again():
    slots = Slots()
    keys = [("owner:a", 2, "This user"), ("flow:1", 1, "This flow")]
    slots.take(keys)
    slots.give_back(["owner:a", "flow:1"])

    slots.take(keys)

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

    assert str(refused.value.detail).startswith("This user already has 2")
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
