"""A small pool of sandbox worker processes, and the wall clock around each job.

Workers are spawned with `subprocess` (never forked from Django), with an empty
environment, `/` as working directory and their own session. A job that overruns
its budget, or a worker that dies, costs that job only: the worker is killed, a
replacement is started in the background, and the caller gets a `WorkerFailure`.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import re
import select
import subprocess
import sys
import threading
import time
from pathlib import Path

from sandbox import metrics

logger = logging.getLogger("weir.sandbox")

WORKER_SCRIPT = str(Path(__file__).with_name("worker.py"))
STARTUP_SECONDS = 10.0
# A worker writes one byte on its acknowledgement pipe as it reads a job, before
# running it. The pipe is read only when a worker dies (did the job start?) and
# now and then to keep it from filling: a pipe holds 4 KiB at the least, and a
# full one would block the worker.
ACKS_BEFORE_DRAIN = 1024


LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def utf8_json(text: str) -> bytes:
    """JSON text as UTF-8; a lone surrogate (a JSON escape decoded earlier, which
    UTF-8 cannot carry) goes back to its escape, so JavaScript sees it as sent."""
    try:
        return text.encode()
    except UnicodeEncodeError:
        return LONE_SURROGATE.sub(lambda m: f"\\u{ord(m[0]):04x}", text).encode()


class WorkerFailure(Exception):
    """The worker overran its budget (`timed_out`) or died; it has been replaced."""

    def __init__(self, code: str, message: str, *, timed_out: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.timed_out = timed_out


class WorkerGone(WorkerFailure):
    """The worker was dead before it got the job; the job may safely go elsewhere."""


_warned: list[bool] = []


def _warn_unconfined() -> None:
    if not _warned:
        _warned.append(True)
        logger.warning(
            "Sandbox workers cannot be shut out of the disk on this system "
            "(no chroot or user namespaces); see docs/sandbox.md."
        )


class Worker:
    """One spawned worker process and the line protocol to it."""

    def __init__(self, memory_mb: int):
        acks, ack_end = os.pipe()
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-I", WORKER_SCRIPT, str(memory_mb), str(ack_end)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                pass_fds=(ack_end,),
                env={},
                cwd="/",
                start_new_session=True,
            )
        except BaseException:
            os.close(acks)
            raise
        finally:
            os.close(ack_end)
        os.set_blocking(acks, False)
        self._acks = acks
        self._jobs_sent = 0
        self._acks_read = 0
        self._buffer = b""
        try:
            ready = json.loads(self._read_line(time.monotonic() + STARTUP_SECONDS))
        except (WorkerFailure, ValueError):
            ready = None
        if not isinstance(ready, dict) or ready.get("ready") is not True:
            self.kill()
            raise WorkerFailure("sandbox_unavailable", "The sandbox did not start.")
        if ready.get("confined") != "chroot":
            _warn_unconfined()

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def call(self, job: dict, deadline: float) -> dict:
        """Send `job`: its fields as one JSON line, then its `variables` (already
        one JSON text, which the worker hands to JavaScript as it is) on a line
        of their own, so they are not escaped and unescaped once more.

        The worker acknowledges a job on its acknowledgement pipe before running
        it, so a worker that dies without acknowledging never started the job.
        That pipe is not waited on: the reply is the only wake-up of a job.
        """
        fields = dict(job)
        variables = fields.pop("variables", "{}")
        line = json.dumps(fields).encode() + b"\n"
        line += utf8_json(variables) + b"\n"
        try:
            self.process.stdin.write(line)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise WorkerGone(
                "sandbox_crashed", "The sandbox process stopped unexpectedly."
            ) from error
        self._jobs_sent += 1
        try:
            reply = self._read_line(deadline)
        except WorkerFailure as failure:
            if failure.timed_out or self._started_last_job():
                raise
            raise WorkerGone(failure.code, failure.message) from failure
        if self._jobs_sent - self._acks_read >= ACKS_BEFORE_DRAIN:
            self._read_acks()
        return json.loads(reply)

    def _read_acks(self) -> bool:
        """Count the acknowledgements waiting in the pipe; False once it is closed."""
        while True:
            try:
                chunk = os.read(self._acks, 1 << 16)
            except BlockingIOError:
                return True
            if not chunk:
                return False
            self._acks_read += len(chunk)

    def _started_last_job(self) -> bool:
        """Whether the worker, whose output has ended, had acknowledged the last
        job. It is exiting; its acknowledgements are all in the pipe once the
        pipe closes (waited for at most a few seconds)."""
        deadline = time.monotonic() + 5
        while self._read_acks() and time.monotonic() < deadline:
            select.select([self._acks], [], [], 0.1)
        return self._acks_read >= self._jobs_sent

    def _read_line(self, deadline: float) -> bytes:
        fd = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise WorkerFailure(
                    "sandbox_timeout",
                    "The code ran past its time budget and was stopped.",
                    timed_out=True,
                )
            readable, _, _ = select.select([fd], [], [], remaining)
            if not readable:
                continue
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                raise WorkerFailure(
                    "sandbox_crashed",
                    "The sandbox process stopped (it hit an OS limit or crashed).",
                )
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def kill(self) -> None:
        try:
            self.process.kill()
            self.process.wait(timeout=5)
        except (OSError, subprocess.TimeoutExpired):
            logger.warning("Sandbox worker %s did not exit", self.pid)
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        acks, self._acks = self._acks, -1  # closed once: its number may be reused
        if acks >= 0:
            os.close(acks)


class WorkerPool:
    """At most `size` workers, each serving one job at a time; thread-safe.

    `size` bounds the processes alive or starting, whatever happens: a worker
    is counted from the moment its start is reserved (`_reserve`) until it is
    discarded, so a replacement started in the background and a job that needs
    a worker cannot together pass the bound.
    """

    def __init__(self, size: int, memory_mb: int):
        self.size = size
        self.memory_mb = memory_mb
        self.owner_pid = os.getpid()
        # One lock for the slots, the idle workers and the counts: a job takes
        # it twice when a worker is idle (a semaphore and a queue, each with
        # its condition in Python, cost several times that on every job).
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)  # a slot or a worker freed
        self._waiting = 0  # callers waiting on `_changed`
        self._free_slots = size
        self._idle: list[Worker] = []  # the last one in is the next one out
        self._all: set[Worker] = set()
        self._starting = 0

    def call(self, job: dict, deadline: float) -> dict:
        """Send `job` to a free worker; wait for its reply until `deadline`."""
        self._take_slot(deadline)
        idle = None  # the worker to keep: only one that answered
        try:
            worker = self._take(deadline)
            try:
                reply = worker.call(job, deadline)
            except WorkerGone:
                # It died before reading the job, which therefore never started:
                # one retry on another worker is safe (jobs have no side effects).
                self._discard(worker)
                worker = self._take(deadline)
                reply = self._call_or_discard(worker, job, deadline)
            except WorkerFailure:
                self._discard(worker)
                self._replace_in_background()
                raise
            idle = worker
            return reply
        finally:
            self._give_back(idle)

    def _take_slot(self, deadline: float) -> None:
        """One of the `size` slots, waited for until `deadline` (`sandbox_busy`)."""
        with self._lock:
            while not self._free_slots:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _busy()
                self._wait(remaining)
            self._free_slots -= 1

    def _give_back(self, worker: Worker | None) -> None:
        """The caller's slot, and its worker (None: discarded) to the idle ones."""
        with self._lock:
            if worker is not None:
                self._idle.append(worker)
            self._free_slots += 1
            if self._waiting:
                self._changed.notify_all()

    def _wait(self, seconds: float) -> None:
        """Wait (holding `_lock`) until a slot or a worker is freed, or `seconds`."""
        self._waiting += 1
        try:
            self._changed.wait(seconds)
        finally:
            self._waiting -= 1

    def _call_or_discard(self, worker: Worker, job: dict, deadline: float) -> dict:
        try:
            return worker.call(job, deadline)
        except WorkerFailure:
            self._discard(worker)
            self._replace_in_background()
            raise

    def pids(self) -> list[int]:
        with self._lock:
            return [worker.pid for worker in self._all]

    def close(self) -> None:
        with self._lock:
            workers, self._all = list(self._all), set()
        for worker in workers:
            worker.kill()
            metrics.SANDBOX_WORKERS.dec()

    def _take(self, deadline: float) -> Worker:
        """An idle live worker, or a new one if the bound allows; dead ones go.

        The caller holds a slot, so when every worker is counted and none is
        idle, one is being started in the background and will be idle soon.
        """
        while True:
            with self._lock:
                worker = self._idle.pop() if self._idle else None
            if worker is None:
                if self._reserve():
                    return self._spawn()
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise _busy()
                with self._lock:
                    if not self._idle:
                        self._wait(min(remaining, 0.05))
                continue
            if worker.alive:
                return worker
            self._discard(worker)

    def _reserve(self) -> bool:
        with self._lock:
            if len(self._all) + self._starting >= self.size:
                return False
            self._starting += 1
            return True

    def _spawn(self) -> Worker:
        """Start a worker for a reservation `_reserve` granted."""
        try:
            worker = Worker(self.memory_mb)
        except BaseException:
            with self._lock:
                self._starting -= 1
            raise
        with self._lock:
            self._starting -= 1
            self._all.add(worker)
        metrics.SANDBOX_WORKERS.inc()
        return worker

    def _discard(self, worker: Worker) -> None:
        # Killed and reaped first, so it is counted until it is gone.
        worker.kill()
        with self._lock:
            self._all.discard(worker)
        metrics.SANDBOX_WORKERS.dec()
        metrics.SANDBOX_RESTARTS.inc()

    def _replace_in_background(self) -> None:
        if not self._reserve():
            return

        def replace():
            try:
                worker = self._spawn()
                with self._lock:
                    self._idle.append(worker)
                    if self._waiting:
                        self._changed.notify_all()
            except (OSError, WorkerFailure):
                logger.exception("Could not start a replacement sandbox worker")

        threading.Thread(target=replace, name="sandbox-respawn", daemon=True).start()


def _busy() -> WorkerFailure:
    return WorkerFailure(
        "sandbox_busy",
        "Every sandbox worker stayed busy until the time budget ran out.",
        timed_out=True,
    )


_pool: WorkerPool | None = None
_pool_lock = threading.Lock()


def get_pool(size: int, memory_mb: int) -> WorkerPool:
    """This process's pool; a forked child (gunicorn worker) gets its own."""
    global _pool
    pool = _pool
    if pool is not None and pool.owner_pid == os.getpid():
        return pool
    with _pool_lock:
        if _pool is None or _pool.owner_pid != os.getpid():
            _pool = WorkerPool(size, memory_mb)
            atexit.register(_pool.close)
        return _pool
