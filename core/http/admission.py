"""Admission control's slot counter: slow synchronous work cannot take every thread.

This module counts slots under caps and knows no app; which caps a piece of
work counts under (process, account, workspace or person, flow) is the
engine's policy, flows/engine/admission.py, whose `admitted()` wraps the work.

A synchronous run (a webhook answered when its flow completes, `POST
/api/flows/:id/run`) or a chat turn holds a web thread until it ends. Without a
bound, a slow flow or model takes every thread of the process and sign-in pages
wait behind it. `admitted()` wraps such work:

- a request that waited in the server's queue (and here) longer than
  `REQUEST_QUEUE_TIMEOUT_SECONDS` is refused with 503: its caller has likely
  given up, and running it late only deepens the queue;
- each piece of work holds a slot of the process (`SYNC_RUNS_PER_PROCESS`, a
  number below the thread count), of its owner (`SYNC_RUNS_PER_OWNER`, the
  name kept: a flow's workspace for a run, the person for a chat turn) and of
  its flow (`SYNC_RUNS_PER_FLOW`) while it runs;
- a caller that finds a cap full **waits** while any of the runs holding it is
  younger than `ADMISSION_SLOW_SECONDS`: a fast flow hands its slot over within
  milliseconds, so its callers are served, a little later, never refused. Once
  every holder has run past that age the holders are slow, nothing comes free
  soon, and the caller is refused at once: 503 `unavailable` for the process,
  429 `throttled` for an owner or flow. A wait never lasts longer than
  `ADMISSION_SLOW_SECONDS` past the start of the youngest holder;
- a flow whose last run in this process ended within `ADMISSION_SLOW_SECONDS`
  (and none of whose runs in progress has run past it) is **fast**: only the
  slow runs count against its owner's and flow's caps, so its runs go side by
  side up to the process cap instead of one by one (with caps of 1, waiting
  in turn cost a fast flow a third of its throughput and ~0.7 ms of CPU per
  call: bench/README.md). The first run it makes slow turns it back. A run
  let past the owner's or flow's cap only because its lane was fast, which
  then turns slow, makes every lane of the process count every run for
  `STRICT_PER_SLOW_SECOND` times as long as it ran slow: a caller who makes a
  flow slow at will (its HTTP peer answers late when asked) can fill the
  process with it for one run's length, then only a tenth of the time, with
  that flow or any other. So slots are held by what is slow, not by what is
  concurrent.

Counts are per process, in memory (docs/decisions.md, "Admission control"):
the threads being protected are the process's own, and taking or giving back a
slot costs about a microsecond, no round trip. The refusal creates nothing: the
caller raises before any run or message exists.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings
from django.http import HttpRequest

from core.http.errors import RetryLater, Throttled, Unavailable

# Set by the server (config.gunicorn.QueueStampingWorker): when it took the
# request off its socket (time.time()), before it waited for a free thread.
QUEUED_AT_KEY = "weir.queued_at"
# Microseconds, milliseconds or seconds since the epoch, told apart by size:
# nginx sends `t=1700000000.123`, Heroku's router 1700000000123.
_MICROSECONDS = 1e14
_MILLISECONDS = 1e11
PROCESS = "process"
# How many lanes (flows, owners) this process remembers as fast or slow.
LANES_KEPT = 4096
# No lane counts as fast for this many seconds per second that a run let past
# its caps (its lane was fast) ran slow: whatever ends fast meanwhile, in any lane.
STRICT_PER_SLOW_SECOND = 10
# How long a caller that fits, but is not next in line, waits before checking
# again in case the one in line no longer fits.
TURN_CHECK_SECONDS = 0.005


@dataclass(frozen=True, eq=False)
class _Waiter:
    arrival: int
    caps: list[Cap]
    # Notified alone when the waiter is next in line for what came free.
    wake: threading.Condition


@dataclass(frozen=True)
class Cap:
    """At most `limit` slots under `key`; `what` names it in a 429 (None: 503)."""

    key: str
    limit: int
    what: str | None = None

    def refusal(self) -> RetryLater:
        retry_after = settings.ADMISSION_RETRY_AFTER_SECONDS
        if self.what is None:
            return Unavailable(
                retry_after,
                "The server is running as much as it can at once; try again shortly.",
            )
        return Throttled(
            retry_after,
            f"{self.what} already has {self.limit} slow runs or chat turns in "
            "progress; try again when one ends.",
        )


class Slots:
    """This process's synchronous work in progress, and when each piece turns slow.

    Work belongs to a lane: its flow's cap key, else its owner's. A lane whose
    last run here ended within `slow_after`, and none of whose runs holding a
    slot has run past it, is fast: its callers count only the slow holders
    against the owner's and flow's caps, so fast runs of one flow run side by
    side (up to the process cap) instead of one after another. A lane never
    seen, or whose last run was slow, counts every holder. The process cap
    always counts every holder: it is what keeps threads free for pages.
    """

    def __init__(self):
        # Guards everything below; each waiting caller sleeps on its own
        # condition over it, so a freed slot wakes the one caller next in
        # line, not every waiting thread (each woken thread takes the GIL and
        # re-checks every waiter: ~14 checks per slot with two waiters).
        self._lock = threading.RLock()
        self._tickets = itertools.count()
        # key -> {ticket: monotonic moment its holder turns slow}; a key
        # disappears with its last slot.
        self._held: dict[str, dict[int, float]] = {}
        # lane -> whether its last run here ended before it turned slow; the
        # most recently ended last, at most LANES_KEPT of them.
        self._fast: OrderedDict[str, bool] = OrderedDict()
        # Tickets admitted past a strict owner or flow cap (their lane was
        # fast), and the monotonic moment before which no lane is fast.
        self._waived: set[int] = set()
        self._strict_until = 0.0
        # The callers in take(), in the order they came.
        self._arrivals = itertools.count()
        self._waiting: list[_Waiter] = []

    def take(
        self, caps: list[Cap], *, slow_after: float, give_up_at: float = float("inf")
    ) -> int:
        """Take a slot under every cap and return the ticket that gives them back.

        Waits while a full cap has a counted holder that is still young; raises
        the cap's refusal once all its counted holders are slow, or 503 at
        `give_up_at` (monotonic). Takes nothing when it raises. When several
        waiting callers fit, the one whose owner holds the fewest slots goes
        first, then the one that waited longest (`_next_in_line`).
        """
        with self._lock:
            if not self._waiting:  # nobody in line: take at once if it fits
                now = time.monotonic()
                full, _, waived = self._fit(caps, now)
                if full is None:
                    return self._grant(caps, now, slow_after, waived)
            me = _Waiter(next(self._arrivals), caps, threading.Condition(self._lock))
            self._waiting.append(me)
            try:
                return self._take_in_turn(me, slow_after, give_up_at)
            finally:
                self._waiting.remove(me)
                if self._waiting:  # a slot taken or a turn given up
                    self._wake_next(time.monotonic())

    def _take_in_turn(self, me: _Waiter, slow_after: float, give_up_at: float) -> int:
        while True:
            now = time.monotonic()
            full, counted, waived = self._fit(me.caps, now)
            alone = len(self._waiting) == 1
            if full is None and (alone or self._next_in_line(now) is me):
                return self._grant(me.caps, now, slow_after, waived)
            if full is not None:
                # The youngest counted holder turns slow last: wait for it at
                # most. (A cap of 0 has no holder to wait for.)
                young_until = max(counted, default=now)
                if young_until <= now:
                    raise full.refusal()
            if give_up_at <= now:
                raise Unavailable(
                    settings.ADMISSION_RETRY_AFTER_SECONDS,
                    "The request waited too long for a free slot; try again.",
                )
            if full is None:
                # Another waiting caller goes first; it takes its slot and wakes
                # the next (the short wait only covers a lane that turned slow
                # between its check and ours).
                self._wake_next(now)
                me.wake.wait(min(TURN_CHECK_SECONDS, give_up_at - now))
            else:
                me.wake.wait(min(young_until, give_up_at) - now)

    def _grant(
        self, caps: list[Cap], now: float, slow_after: float, waived: bool
    ) -> int:
        ticket = next(self._tickets)
        for cap in caps:
            self._held.setdefault(cap.key, {})[ticket] = now + slow_after
        if waived:
            self._waived.add(ticket)
        return ticket

    def _fit(self, caps: list[Cap], now: float) -> tuple[Cap | None, list, bool]:
        """The first of `caps` that is full now (None: all have room), the
        moments its counted holders turn slow, and whether a fast lane lets
        the work past an owner's or flow's cap its holders fill."""
        fast = self._is_fast(caps[-1].key, now)
        waived = False
        for cap in caps:
            counted = list(self._held.get(cap.key, {}).values())
            if fast and cap.what is not None:
                waived = waived or len(counted) >= cap.limit
                counted = [slow_at for slow_at in counted if slow_at <= now]
            if len(counted) >= cap.limit:
                return cap, counted, waived
        return None, [], waived

    def _next_in_line(self, now: float) -> _Waiter | None:
        """Of the waiting callers that fit now, the one whose owner holds the
        fewest slots, then the earliest: a flood of one workspace's calls
        waits behind its own runs, not in front of another's."""

        def turn(waiter: _Waiter) -> tuple[int, int]:
            return len(self._held.get(waiter.caps[1].key, ())), waiter.arrival

        for waiter in sorted(self._waiting, key=turn):
            if self._fit(waiter.caps, now)[0] is None:
                return waiter
        return None

    def _wake_next(self, now: float, *, freed: bool = False) -> None:
        """Wake the waiting caller next in line, if one fits now; the others
        sleep on until a slot comes free or their own wait ends. A slot given
        back (`freed`) that lets nobody in may have left a full cap with slow
        holders only: every waiter then checks whether it is refused now."""
        waiter = self._next_in_line(now)
        if waiter is not None:
            waiter.wake.notify()
        elif freed:
            for waiter in self._waiting:
                waiter.wake.notify()

    def _is_fast(self, lane: str, now: float) -> bool:
        return (
            self._strict_until <= now
            and self._fast.get(lane, False)
            and all(slow_at > now for slow_at in self._held.get(lane, {}).values())
        )

    def give_back(self, ticket: int, caps: list[Cap]) -> None:
        lane = caps[-1].key
        with self._lock:
            now, slow_at = time.monotonic(), self._held[lane][ticket]
            self._fast[lane] = now < slow_at
            if ticket in self._waived:
                self._waived.discard(ticket)
                if slow_at <= now:
                    penalty = STRICT_PER_SLOW_SECOND * (now - slow_at)
                    self._strict_until = max(self._strict_until, now + penalty)
            self._fast.move_to_end(lane)
            if len(self._fast) > LANES_KEPT:
                self._fast.popitem(last=False)
            for cap in caps:
                holders = self._held[cap.key]
                del holders[ticket]
                if not holders:
                    del self._held[cap.key]  # keep the table as small as the work
            if self._waiting:
                self._wake_next(now, freed=True)

    @property
    def in_use(self) -> int:
        with self._lock:
            return len(self._held.get(PROCESS, ()))


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


def waited(request: HttpRequest, now: float) -> float:
    arrival = arrived_at(request)
    return 0.0 if arrival is None else now - arrival


def check_queue_wait(request: HttpRequest, *, now: float | None = None) -> None:
    """503 when the request waited past `REQUEST_QUEUE_TIMEOUT_SECONDS`."""
    so_far = waited(request, time.time() if now is None else now)
    if so_far > settings.REQUEST_QUEUE_TIMEOUT_SECONDS:
        raise Unavailable(
            settings.ADMISSION_RETRY_AFTER_SECONDS,
            f"The request waited {so_far:.1f} s for the server; it was not run "
            "late. Try again.",
        )
