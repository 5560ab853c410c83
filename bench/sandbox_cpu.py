"""CPU per code job, on each side of the sandbox pipe.

Calls `sandbox.run_code` (the webhook benchmark's code node, on its
payload) N times in process, five rounds, and prints per call the wall time,
this (the web) process's CPU time and the worker processes' CPU time (from
/proc, in clock ticks: 10 µs resolution at N=1000). Runs against any checkout,
so two can be compared in one sitting, on a machine whose load you note
(`SOURCE` replaces the code, e.g. one that uses `dates`):

    .venv/bin/python bench/sandbox_cpu.py
    ROOT=/path/to/another/checkout N=2000 .venv/bin/python bench/sandbox_cpu.py
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(os.environ.get("ROOT", Path(__file__).resolve().parent.parent))
N = int(os.environ.get("N", "1000"))
SOURCE = os.environ.get("SOURCE", "return { greeting: 'hi ' + input.name };")
PAYLOAD = {"name": "Ada", "items": [1, 2, 3]}
VARIABLES = {"input": PAYLOAD, "prev": PAYLOAD, "results": {"trigger": PAYLOAD}}


def workers_cpu_seconds(pids: list[int]) -> float:
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        ticks += int(fields[11]) + int(fields[12])  # utime + stime
    return ticks / os.sysconf("SC_CLK_TCK")


def main() -> None:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("WEIR_TESTING", "1")
    os.environ["DATABASE_URL"] = "sqlite://:memory:"
    import django

    django.setup()
    import sandbox

    sandbox.run_code(SOURCE, VARIABLES)  # start a worker
    pids = sandbox.worker_pool().pids()
    print(f"{ROOT}, {N} calls a round, load {os.getloadavg()[0]:.2f}")
    for _ in range(5):
        worker, cpu, wall = (
            workers_cpu_seconds(pids),
            time.process_time(),
            time.perf_counter(),
        )
        for _ in range(N):
            sandbox.run_code(SOURCE, VARIABLES)
        print(
            f"wall {(time.perf_counter() - wall) / N * 1e6:5.0f} µs"
            f"  web CPU {(time.process_time() - cpu) / N * 1e6:5.0f} µs"
            f"  worker CPU {(workers_cpu_seconds(pids) - worker) / N * 1e6:5.0f} µs"
        )


if __name__ == "__main__":
    main()
