"""Idle workers wait on NOTIFY for a queued task, with polling as the fallback."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection

from flows.engine.queue_listener import LISTENER_NAME, RECONNECT_SECONDS, Wakeup
from tests.flows.engine.conftest import timed_wait
from tests.processes import needs_postgres
from tests.tasks import note_pid

pytestmark = [
    pytest.mark.django_db(transaction=True),
    needs_postgres,
    pytest.mark.timing,
]


def cut_off_listener() -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            # This test database's only: other pytest-xdist workers have theirs.
            "WHERE application_name = %s AND datname = current_database()",
            [LISTENER_NAME],
        )
        assert cursor.fetchone() == (True,)


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_wait_ends_as_soon_as_a_task_is_queued(wakeup, tmp_path):
    threading.Timer(0.2, note_pid.enqueue, [str(tmp_path / "notes")]).start()

    waited = timed_wait(wakeup, 10)

    assert 0.15 < waited < 2, waited


def test_a_task_queued_while_the_worker_was_busy_ends_the_next_wait_at_once(
    wakeup, tmp_path
):
    note_pid.enqueue(str(tmp_path / "notes"))

    assert timed_wait(wakeup, 10) < 1


def test_without_a_task_a_wait_lasts_the_poll_interval(wakeup):
    assert 0.25 < timed_wait(wakeup, 0.3) < 2


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_lost_listener_falls_back_to_polling_then_listens_again(wakeup, tmp_path):
    cut_off_listener()

    waited = timed_wait(wakeup, 0.3)  # notices, and sleeps out the interval

    assert 0.25 < waited < 2, waited
    assert not wakeup.listening
    time.sleep(RECONNECT_SECONDS)
    wakeup.wait(0)
    assert wakeup.listening
    threading.Timer(0.2, note_pid.enqueue, [str(tmp_path / "notes")]).start()
    assert timed_wait(wakeup, 10) < 2


def test_a_listener_that_cannot_connect_polls():
    waiting = Wakeup()
    waiting._connect_after = float("inf")  # as if the last attempt just failed

    assert 0.25 < timed_wait(waiting, 0.3) < 2
    assert not waiting.listening
