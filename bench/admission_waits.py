"""What waiting for a synchronous slot costs in CPU, without a server.

`make bench-webhook` runs 4 threads per process and admits 2 synchronous runs
(`SYNC_RUNS_PER_PROCESS`), so under load two threads wait in admission while
two run. This reproduces that shape in one process: 4 threads take runs of a
fast flow (~0.3 ms of Python and three short blocking waits, as a run's
sandbox job and statements) through `Slots`, with a process cap of 2 (every
run waits its turn) and of 4 (none waits), and prints the process's CPU per
run and how many times the caps were checked per run. Thread CPU moves with
the machine's load; compare the two lines of one run, or two checkouts run
back to back (`ROOT=/path/to/checkout`).

    .venv/bin/python bench/admission_waits.py
"""

from __future__ import annotations

import os
import statistics
import sys
import threading
import time
from pathlib import Path

ROOT = Path(os.environ.get("ROOT", Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(ROOT))

from core.http import admission  # noqa: E402
from core.http.admission import PROCESS, Cap, Slots  # noqa: E402

RUNS = int(os.environ.get("RUNS", "2000"))
THREADS = 4
ROUNDS = 5


def a_run() -> None:
    for _ in range(3):
        sum(range(3000))
        time.sleep(0.0007)


def measure(process_cap: int) -> tuple[float, float]:
    """CPU ms per run, and cap checks per run."""
    caps = [
        Cap(PROCESS, process_cap),
        Cap("workspace:w", 1, "This workspace"),
        Cap("flow:f", 1, "This flow"),
    ]
    slots = Slots()
    left = iter(range(RUNS))
    lock = threading.Lock()
    checks = [0]
    fit = Slots._fit

    def counted_fit(self, *args):
        checks[0] += 1
        return fit(self, *args)

    def worker() -> None:
        while True:
            with lock:
                if next(left, None) is None:
                    return
            ticket = slots.take(caps, slow_after=0.5)
            try:
                a_run()
            finally:
                slots.give_back(ticket, caps)

    Slots._fit = counted_fit
    try:
        threads = [threading.Thread(target=worker) for _ in range(THREADS)]
        started = time.process_time()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        cpu = time.process_time() - started
    finally:
        Slots._fit = fit
    return cpu / RUNS * 1e3, checks[0] / RUNS


def main() -> None:
    print(f"{ROOT}: {THREADS} threads, {RUNS} runs of a fast flow, median of {ROUNDS}")
    print(f"(admission module: {admission.__file__})\n")
    print("| process cap | CPU ms per run | cap checks per run |\n|---|---|---|")
    results: dict[int, list[tuple[float, float]]] = {2: [], 4: []}
    for _ in range(ROUNDS):  # interleaved, so the machine's load hits both alike
        for cap in results:
            results[cap].append(measure(cap))
    for cap, rows in results.items():
        cpu = statistics.median(row[0] for row in rows)
        checks = statistics.median(row[1] for row in rows)
        print(f"| {cap} | {cpu:.3f} | {checks:.1f} |")


if __name__ == "__main__":
    main()
