"""Tasks only the suite enqueues, to watch real workers at work."""

from __future__ import annotations

import os
import time
from pathlib import Path

from django_tasks import task


@task
def note_pid(path: str, sleep_seconds: float = 0) -> None:
    """Append this worker's pid to `path`, after sleeping (to be killed mid-task)."""
    with Path(path).open("a") as out:
        out.write(f"start {os.getpid()}\n")
    time.sleep(sleep_seconds)
    with Path(path).open("a") as out:
        out.write(f"done {os.getpid()}\n")
