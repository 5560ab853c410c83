"""Admission control: synchronous work on web threads is bounded, so pages stay up.

A synchronous run (a webhook answered when its flow completes, `POST
/api/flows/:id/run`) or a chat turn holds a web thread until it ends. Without a
bound, a slow flow or model takes every thread of the process and sign-in pages
wait behind it. `admitted()` wraps such work:

- a request that waited in the server's queue longer than
  `REQUEST_QUEUE_TIMEOUT_SECONDS` is refused with 503: its caller has likely
  given up, and running it late only deepens the queue;
- at most `SYNC_RUNS_PER_PROCESS` of them run at once in this process (503
  `unavailable` above it), a number below the thread count, so the rest of the
  threads always serve pages, the API and these refusals;
- at most `SYNC_RUNS_PER_OWNER` per user and `SYNC_RUNS_PER_FLOW` per flow (429
  `throttled` above them), so one user or one slow flow cannot take the whole
  process from everyone else.

Counts are per process, in memory (docs/decisions.md, "Admission control"):
the threads being protected are the process's own, and taking or giving back a
slot costs about a microsecond, no round trip. The refusal creates nothing: the
caller raises before any run or message exists.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest

from config.http.errors import Throttled, Unavailable

# Set by `config.gunicorn.QueueStampingWorker`: when the server took the request
# off its socket (time.time()), before it waited for a free thread.
QUEUED_AT_KEY = "weir.queued_at"
# Microseconds, milliseconds or seconds since the epoch, told apart by size:
# nginx sends `t=1700000000.123`, Heroku's router 1700000000123.
_MICROSECONDS = 1e14
_MILLISECONDS = 1e11


class Slots:
    """This process's synchronous work in progress: a total and counts per key."""

    def __init__(self):
        self._lock = threading.Lock()
        self._total = 0
        self._held: Counter[str] = Counter()

    def take(self, capped: list[tuple[str, int, str]]) -> None:
        """Take one slot of the process and one under each `(key, limit, what)`.

        Raises Unavailable when the process is full, Throttled when a key is at
        its limit (`what` names it in the message); takes nothing then.
        """
        retry_after = settings.ADMISSION_RETRY_AFTER_SECONDS
        with self._lock:
            if self._total >= settings.SYNC_RUNS_PER_PROCESS:
                raise Unavailable(
                    retry_after,
                    "The server is running as much as it can at once; "
                    "try again shortly.",
                )
            for key, limit, what in capped:
                if self._held[key] >= limit:
                    raise Throttled(
                        retry_after,
                        f"{what} already has {limit} runs or chat turns in "
                        "progress; try again when one ends.",
                    )
            self._total += 1
            for key, _, _ in capped:
                self._held[key] += 1

    def give_back(self, keys: list[str]) -> None:
        with self._lock:
            self._total -= 1
            for key in keys:
                self._held[key] -= 1
                if not self._held[key]:
                    del self._held[key]  # keep the counter as small as the work

    @property
    def in_use(self) -> int:
        return self._total


SLOTS = Slots()


def _seconds_since_epoch(header: str) -> float | None:
    """An `X-Request-Start` value (`t=` optional) as epoch seconds, or None."""
    try:
        value = float(header.strip().removeprefix("t="))
    except ValueError:
        return None
    if value > _MICROSECONDS:
        return value / 1e6
    if value > _MILLISECONDS:
        return value / 1e3
    return value


def arrived_at(request: HttpRequest) -> float | None:
    """When the request reached us (epoch seconds), if anyone recorded it.

    The earliest of the front end's `X-Request-Start` and the server's own
    stamp. A client sending the header itself can only make its own request
    look older (refused sooner), never skip a queue it did not wait in longer.
    """
    times = [request.META.get(QUEUED_AT_KEY)]
    header = request.META.get("HTTP_X_REQUEST_START")
    if header:
        times.append(_seconds_since_epoch(header))
    known = [moment for moment in times if moment]
    return min(known) if known else None


def check_queue_wait(request: HttpRequest, *, now: float | None = None) -> None:
    """503 when the request waited past `REQUEST_QUEUE_TIMEOUT_SECONDS`."""
    arrival = arrived_at(request)
    if arrival is None:
        return
    waited = (time.time() if now is None else now) - arrival
    if waited > settings.REQUEST_QUEUE_TIMEOUT_SECONDS:
        raise Unavailable(
            settings.ADMISSION_RETRY_AFTER_SECONDS,
            f"The request waited {waited:.1f} s for the server; it was not run "
            "late. Try again.",
        )


@contextmanager
def admitted(
    request: HttpRequest, *, owner_id, flow_id=None, slots: Slots = SLOTS
) -> Iterator[None]:
    """Hold a synchronous-work slot for the block, or refuse (503/429) before it.

    `owner_id` is whose work it is (the flow's owner, the person chatting);
    `flow_id` the flow being run, if any.
    """
    check_queue_wait(request)
    capped = [(f"owner:{owner_id}", settings.SYNC_RUNS_PER_OWNER, "This user")]
    if flow_id is not None:
        capped.append((f"flow:{flow_id}", settings.SYNC_RUNS_PER_FLOW, "This flow"))
    slots.take(capped)
    try:
        yield
    finally:
        slots.give_back([key for key, _, _ in capped])
