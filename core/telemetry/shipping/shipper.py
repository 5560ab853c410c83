"""`Shipper`: a bounded in-process queue of lines for one destination, drained
by a background thread in batches, retried with backoff while it is away.

`offer(entry)` never waits: it appends to the queue, or when the queue is full
drops the entry, counts it (`weir_log_stream_dropped_total`) and logs the
outage's drops once it is over. A run or a request that audits something
therefore never waits for the network. The thread sends up to `batch_size`
entries at a time, at most `flush_seconds` after the first of them arrived;
a failed batch is kept and sent again after 0.5 s, 1 s, 2 s ... up to
`max_backoff` seconds, while new entries wait behind it: nothing is lost in an
outage the queue outlasts. The thread starts with the first entry in each
process (a forked worker starts its own) and is a daemon; `close` gives it a
moment to send what is left when the process ends.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time

from prometheus_client import Counter

logger = logging.getLogger("weir.log_stream")

SENT = Counter(
    "weir_log_stream_sent_total",
    "Audit events and run outcomes delivered to a log stream destination.",
    ["destination"],
)
DROPPED = Counter(
    "weir_log_stream_dropped_total",
    "Audit events and run outcomes dropped because the log stream's queue was "
    "full (the destination was away longer than the queue lasts).",
    ["destination"],
)
FIRST_BACKOFF = 0.5


class Shipper:
    def __init__(
        self,
        destination,
        *,
        capacity: int = 10_000,
        batch_size: int = 200,
        flush_seconds: float = 1.0,
        max_backoff: float = 30.0,
    ):
        self.destination = destination
        self.capacity = capacity
        self.batch_size = batch_size
        self.flush_seconds = flush_seconds
        self.max_backoff = max_backoff
        self.dropped = 0  # in this outage, logged when it ends
        self._lock = threading.Lock()
        self._pid = None
        self._queue: queue.Queue | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def offer(self, entry) -> bool:
        """Queue `entry` for sending; False (and counted) when the queue is full."""
        self._start()
        try:
            self._queue.put_nowait(entry)
            return True
        except queue.Full:
            self.dropped += 1
            DROPPED.labels(self.destination.name).inc()
            return False

    def _start(self) -> None:
        if self._pid == os.getpid():
            return
        with self._lock:
            if self._pid == os.getpid():
                return
            self._queue = queue.Queue(maxsize=self.capacity)
            self._stop.clear()
            name = f"log-stream-{self.destination.name}"
            self._thread = threading.Thread(target=self._drain, name=name, daemon=True)
            self._thread.start()
            self._pid = os.getpid()

    def _drain(self) -> None:
        batch: list = []
        backoff = FIRST_BACKOFF
        while not (self._stop.is_set() and not batch and self._queue.empty()):
            if not batch:
                batch = self._take()
                if not batch:
                    continue
            try:
                self.destination.send(batch)
            except Exception as failed:  # noqa: BLE001 - any failure is retried
                if backoff == FIRST_BACKOFF:
                    logger.warning(
                        "Log stream %s is away (%s); retrying, %d line(s) held",
                        self.destination.name,
                        failed,
                        len(batch),
                    )
                if self._stop.wait(backoff):
                    return  # closing: what is still held is given up
                backoff = min(backoff * 2, self.max_backoff)
                continue
            SENT.labels(self.destination.name).inc(len(batch))
            batch = []
            if backoff != FIRST_BACKOFF or self.dropped:
                self._recovered()
            backoff = FIRST_BACKOFF

    def _take(self) -> list:
        """Up to `batch_size` entries: waits for the first (a while), then
        gathers what arrives until `flush_seconds` after it."""
        try:
            batch = [self._queue.get(timeout=0.5)]
        except queue.Empty:
            return []
        deadline = time.monotonic() + self.flush_seconds
        while len(batch) < self.batch_size:
            left = deadline - time.monotonic()
            if left <= 0 or self._stop.is_set():
                break
            try:
                batch.append(self._queue.get(timeout=left))
            except queue.Empty:
                break
        return batch

    def _recovered(self) -> None:
        dropped, self.dropped = self.dropped, 0
        if dropped:
            logger.warning(
                "Log stream %s is back; %d line(s) were dropped while it was away "
                "(the queue holds %d)",
                self.destination.name,
                dropped,
                self.capacity,
            )
        else:
            logger.info("Log stream %s is back", self.destination.name)

    def close(self, timeout: float = 2.0) -> None:
        """Stop the thread after it sends what is queued, waiting up to `timeout`."""
        if self._pid != os.getpid():
            return
        self._stop.set()
        self._thread.join(timeout)
        self._pid = None
        if not self._thread.is_alive():
            self.destination.close()
