"""Admission control's sizes (DESIGN section 7; flows/engine/admission.py).

Synchronous runs and chat turns hold a web thread each; these bound them per
process, so the other threads always serve pages. A caller over a cap waits
while a holder is younger than ADMISSION_SLOW_SECONDS, and is refused once all
are older: slots are held by what is slow. `config.gunicorn.QueueStampingWorker`
sets WEB_THREADS to gunicorn's real --threads. Each cap left empty follows the
one above it (`env_values.derived_int`).
"""

from __future__ import annotations

from config import env_values


def read(env) -> dict:
    threads = env.int("WEB_THREADS", default=4)
    process = env_values.derived_int(env, "SYNC_RUNS_PER_PROCESS", max(1, threads - 2))
    owner = env_values.derived_int(env, "SYNC_RUNS_PER_OWNER", max(1, process - 1))
    return {
        "WEB_THREADS": threads,
        "SYNC_RUNS_PER_PROCESS": process,
        "SYNC_RUNS_PER_OWNER": owner,
        # One account's workspaces together (docs/operations.md, "One account,
        # one share").
        "SYNC_RUNS_PER_ACCOUNT": env_values.derived_int(
            env, "SYNC_RUNS_PER_ACCOUNT", owner
        ),
        "SYNC_RUNS_PER_FLOW": env_values.derived_int(
            env, "SYNC_RUNS_PER_FLOW", max(1, owner - 1)
        ),
        # A run or chat turn that waited longer for a thread is refused (503),
        # not run late.
        "REQUEST_QUEUE_TIMEOUT_SECONDS": env.float(
            "REQUEST_QUEUE_TIMEOUT_SECONDS", default=5
        ),
        "ADMISSION_SLOW_SECONDS": env.float("ADMISSION_SLOW_SECONDS", default=0.5),
        "ADMISSION_RETRY_AFTER_SECONDS": env.int(
            "ADMISSION_RETRY_AFTER_SECONDS", default=2
        ),
    }
