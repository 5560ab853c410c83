"""The sandbox's readiness check, registered into /readyz by flows' AppConfig."""

from __future__ import annotations

import time

from core.telemetry.health import CHECK_TIMEOUT_SECONDS
from sandbox import evaluate


def check_sandbox() -> None:
    """The pool answers a job: it starts a worker when it has none running."""
    deadline = time.monotonic() + CHECK_TIMEOUT_SECONDS
    if evaluate(["1 + 1"], {}, deadline=deadline) != [2]:
        raise RuntimeError("The sandbox answered a wrong sum.")
