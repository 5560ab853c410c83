"""The sandbox's process wall: spawned workers, OS limits, the caller's clock."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

import sandbox
from flows.engine import run_flow
from sandbox import pool as pool_module
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

VARIABLES = {"input": {"n": 1}, "prev": None, "results": {}}


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/status").read_text()
    return "State:\tZ" not in status


def current_worker_pid() -> int:
    sandbox.run_code("return 1", VARIABLES)
    [pid, *_] = sandbox.worker_pool().pids()
    return pid


def test_workers_are_fresh_interpreters_with_an_empty_environment():
    pid = current_worker_pid()

    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert cmdline[1] == b"-I"
    assert cmdline[2].endswith(b"sandbox/worker.py")
    assert Path(f"/proc/{pid}/environ").read_bytes() == b""
    # Its working directory is its (empty, deleted) root: see confine().
    assert os.readlink(f"/proc/{pid}/cwd") == os.readlink(f"/proc/{pid}/root")


def test_workers_run_under_address_space_and_cpu_limits():
    pid = current_worker_pid()

    limits = {
        line[:26].strip(): line[26:].split()
        for line in Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    }
    assert limits["Max address space"][0] != "unlimited"
    assert limits["Max cpu time"][0] != "unlimited"
    assert int(limits["Max open files"][0]) <= 16


@pytest.mark.timing
def test_a_worker_past_the_callers_wall_clock_is_killed_and_replaced(
    settings, monkeypatch
):
    # Make the caller's budget end before QuickJS's own limit would fire, as if
    # the in-engine limit had failed: the caller must kill the worker itself.
    settings.CODE_TIMEOUT_MS = 3000
    monkeypatch.setattr(sandbox, "KILL_MARGIN_SECONDS", -2.7)
    current_worker_pid()
    before = set(sandbox.worker_pool().pids())
    started = time.monotonic()

    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.run_code("while (true) {}", VARIABLES)

    assert raised.value.code == "sandbox_timeout"
    assert raised.value.timed_out
    assert time.monotonic() - started < 2.0  # QuickJS's own limit: 3 s
    assert any(not alive(pid) for pid in before)
    monkeypatch.setattr(sandbox, "KILL_MARGIN_SECONDS", 1.0)
    assert sandbox.run_code("return input.n + 1", VARIABLES).value == 2


@pytest.mark.django_db
def test_a_run_whose_worker_overruns_ends_timed_out(settings, monkeypatch):
    settings.CODE_TIMEOUT_MS = 3000
    monkeypatch.setattr(sandbox, "KILL_MARGIN_SECONDS", -2.7)
    nodes, edges = chain(trigger(), code("spin", "while (true) {}"))

    run = run_flow(FlowFactory(nodes=nodes, edges=edges), {}, "manual")

    assert run.status == "timed_out"
    assert run.error["code"] == "sandbox_timeout"


def kill_all_workers() -> list[int]:
    pids = sandbox.worker_pool().pids()
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    return pids


@pytest.fixture
def fresh_pool(monkeypatch):
    """A pool of its own: replacements that earlier tests started in the
    background join the old pool, not this one, so its workers are known."""
    monkeypatch.setattr(pool_module, "_pool", None)
    yield
    sandbox.worker_pool().close()


def test_a_worker_that_dies_mid_job_fails_only_that_job(settings, fresh_pool):
    # The job must still be running when the kill lands, even on a loaded machine.
    settings.CODE_TIMEOUT_MS = 8000
    current_worker_pid()
    killer = threading.Timer(1.0, kill_all_workers)
    killer.start()

    with pytest.raises(sandbox.SandboxError) as raised:
        sandbox.run_code("while (true) {}", VARIABLES)
    killer.join()

    assert raised.value.code == "sandbox_crashed"
    assert not raised.value.timed_out
    assert sandbox.run_code("return input.n + 1", VARIABLES).value == 2


def test_a_worker_that_died_while_idle_is_replaced_before_the_next_job(fresh_pool):
    current_worker_pid()
    dead = kill_all_workers()
    time.sleep(0.1)

    assert sandbox.run_code("return input.n + 1", VARIABLES).value == 2
    assert not set(dead) & set(sandbox.worker_pool().pids())


@pytest.mark.timing
def test_a_runaway_job_does_not_hold_up_another(settings):
    settings.CODE_TIMEOUT_MS = 4000
    outcome = {}

    def runaway():
        try:
            sandbox.run_code("while (true) {}", VARIABLES)
        except sandbox.SandboxError as error:
            outcome["runaway"] = error.code

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.1)
    started = time.monotonic()
    value = sandbox.run_code("return 'quick'", VARIABLES).value
    elapsed = time.monotonic() - started
    thread.join()

    assert value == "quick"
    assert elapsed < 2.0  # long before the runaway's 4 s are up
    assert outcome["runaway"] in ("code_timeout", "sandbox_timeout")


def test_expressions_come_back_as_json_values():
    values = sandbox.evaluate(["input.n * 2", "`n=${input.n}`", "[input]"], VARIABLES)

    assert values == [2, "n=1", [{"n": 1}]]


def test_a_worker_that_cannot_start_fails_the_job_clearly(monkeypatch):
    monkeypatch.setattr(pool_module, "WORKER_SCRIPT", "/nonexistent/worker.py")
    fresh = pool_module.WorkerPool(size=1, memory_mb=64)

    with pytest.raises(pool_module.WorkerFailure) as raised:
        fresh.call({"mode": "code"}, time.monotonic() + 5)

    assert raised.value.code == "sandbox_unavailable"
    assert fresh.pids() == []
