"""The pool's bound holds while workers die and are replaced concurrently, and a
job whose worker died before it started runs on another worker instead."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import sandbox
from sandbox import pool as pool_module

VARIABLES = {"input": {"n": 1}, "prev": None, "results": {}}


def job(source: str) -> dict:
    return {
        "mode": "code",
        "source": source,
        "variables": json.dumps(VARIABLES),
        "timeout_ms": 5000,
        "memory_mb": 64,
        "stack_kb": 256,
        "limits": {
            "logLines": 10,
            "logLineChars": 100,
            "logChars": 1000,
            "outputChars": 1000,
        },
    }


def worker_children() -> set[int]:
    """Live worker processes whose parent is this test process."""
    pids = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if (
            fields[0] != "Z"
            and int(fields[1]) == os.getpid()
            and b"worker.py" in cmdline
        ):
            pids.add(int(entry.name))
    return pids


@pytest.fixture
def pool():
    pool = pool_module.WorkerPool(size=2, memory_mb=64)
    yield pool
    pool.close()


def test_the_bound_holds_while_timed_out_workers_are_replaced(pool):
    seen, stop = [], threading.Event()
    time.sleep(0.2)
    others = worker_children()  # the suite's shared pool, idle meanwhile

    def watch():
        while not stop.is_set():
            seen.append(len(worker_children() - others))
            time.sleep(0.005)

    def client(index: int):
        for round_ in range(6):
            if (index + round_) % 2:
                # The caller's clock ends first: the worker is killed and replaced.
                with contextlib.suppress(pool_module.WorkerFailure):
                    pool.call(job("while (true) {}"), time.monotonic() + 0.1)
            else:
                pool.call(job("return 1"), time.monotonic() + 5)

    watcher = threading.Thread(target=watch)
    watcher.start()
    clients = [threading.Thread(target=client, args=(i,)) for i in range(6)]
    for thread in clients:
        thread.start()
    for thread in clients:
        thread.join()
    time.sleep(0.3)  # let background replacements finish
    stop.set()
    watcher.join()

    assert max(seen) <= 2
    assert len(pool.pids()) <= 2
    assert len(worker_children() - others) <= 2


def test_a_job_whose_worker_dies_before_reading_it_runs_on_another(pool):
    pool.call(job("return 1"), time.monotonic() + 5)
    [pid] = pool.pids()
    # Frozen, the worker cannot read the job we send; killed, it never will.
    os.kill(pid, signal.SIGSTOP)
    killer = threading.Timer(0.3, os.kill, (pid, signal.SIGKILL))
    killer.start()

    reply = pool.call(job("return input.n + 41"), time.monotonic() + 5)
    killer.join()

    assert reply["settled"] == {"json": "42"}
    assert pid not in pool.pids()


def test_a_job_whose_worker_dies_mid_job_is_not_run_again(pool):
    pool.call(job("return 1"), time.monotonic() + 5)
    [pid] = pool.pids()
    killer = threading.Timer(0.5, os.kill, (pid, signal.SIGKILL))
    killer.start()

    with pytest.raises(pool_module.WorkerFailure) as raised:
        pool.call(job("while (true) {}"), time.monotonic() + 5)
    killer.join()

    assert raised.value.code == "sandbox_crashed"
    assert sandbox.SandboxError(raised.value.code, "").timed_out is False
