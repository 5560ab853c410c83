"""`manage.py work`: a real worker process for either task engine."""

from __future__ import annotations

import os
import time
from pathlib import Path

from tests.processes import needs_postgres
from tests.tasks import note_pid
from tests.waiting import wait_until

pytestmark = needs_postgres


def lines(path: Path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_worker_runs_a_task_enqueued_by_another_process(engine, processes, tmp_path):
    notes = tmp_path / "notes"
    note_pid.enqueue(str(notes))

    worker = processes.worker()

    assert wait_until(lambda: len(lines(notes)) == 2, 90), worker.output()
    # The worker itself or, on rq, the work horse it forks for the task.
    (start, pid), (done, same_pid) = (line.split() for line in lines(notes))
    assert (start, done) == ("start", "done")
    assert pid == same_pid != str(os.getpid())


def test_a_task_whose_worker_was_killed_is_not_run_again_by_the_engine(
    engine, processes, tmp_path
):
    """Neither engine retries a task whose worker died, which is why runs carry
    a lease and the supervisor re-enqueues them (flows/engine/supervisor.py)."""
    notes = tmp_path / "notes"
    note_pid.enqueue(str(notes), sleep_seconds=30)
    first = processes.worker()
    assert wait_until(lambda: lines(notes), 90), first.output()

    first.kill_9()
    second = processes.worker()

    assert not wait_until(lambda: len(lines(notes)) > 1, 2)
    assert second.popen.poll() is None
    assert len(lines(notes)) == 1
    assert lines(notes)[0].startswith("start ")


def listening_workers() -> int:
    from django.db import connection

    from flows.engine.queue_listener import LISTENER_NAME

    with connection.cursor() as cursor:
        cursor.execute(
            # This test database's only: other pytest-xdist workers have theirs.
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s"
            " AND datname = current_database()",
            [LISTENER_NAME],
        )
        return cursor.fetchone()[0]


def test_a_database_worker_starts_a_task_long_before_its_poll_interval(
    processes, tmp_path
):
    notes = tmp_path / "notes"
    worker = processes.worker(env={"WORKER_POLL_SECONDS": "60"})
    assert wait_until(lambda: listening_workers() == 1, 90), worker.output()
    time.sleep(0.5)  # its first look has found nothing: it waits now

    started = time.monotonic()
    note_pid.enqueue(str(notes))

    assert wait_until(lambda: len(lines(notes)) == 2, 10), worker.output()
    assert time.monotonic() - started < 5
