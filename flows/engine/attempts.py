"""One node's attempts: it runs, and with a `retry` policy (flows/retry.py)
runs again after a wait, as long as the failure is one the policy covers and
the run's deadline leaves room for the wait.

The wait is a sleep in the executing thread, synchronous and background runs
alike (docs/engine.md, "Retries"): it is bounded by the run's deadline, and a
worker killed while waiting resumes the run at this node (attempt 1 again).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from flows.engine.plan import PlannedNode
from flows.models import FlowRun
from flows.nodes import NodeContext, NodeError
from flows.retry import policy_of

logger = logging.getLogger("weir.engine")


def as_node_error(exception: Exception, run: FlowRun, node_id: str) -> NodeError:
    """A node's failure as a NodeError; anything unexpected is a logged bug."""
    if isinstance(exception, NodeError):
        return exception
    logger.error("Node %s of run %s raised", node_id, run.id, exc_info=exception)
    return NodeError(
        "internal_error", "The node failed unexpectedly; the error has been logged."
    )


@dataclass
class Outcome:
    output: Any = None
    failure: NodeError | None = None
    error: dict | None = None  # the failure as stored: {node_id, code, message}
    # Every attempt when the node may retry: {attempt, status, duration_ms[, error]}.
    attempts: list[dict] = field(default_factory=list)


def attempt_node(
    planned: PlannedNode,
    data: dict,
    ctx: NodeContext,
    *,
    run: FlowRun,
    deadline: float,
    check: Callable[[Any], Any],
    describe: Callable[[NodeError], dict],
) -> Outcome:
    """Run the node until it succeeds or its policy gives up.

    `check` turns a raw output into the stored one (redacted, within budget)
    or raises; `describe` turns a failure into the stored error.
    """
    node_id = planned.node["id"]
    policy = policy_of(planned.node)
    attempts: list[dict] = []
    while True:
        clock = time.perf_counter()
        try:
            output = check(planned.kind.run(data, ctx))
            status = output.get("status") if isinstance(output, dict) else None
            if (
                planned.node.get("type") == "http_request"
                and isinstance(status, int)
                and policy.retried_status(status)
            ):
                raise NodeError("http_status", f"The server answered HTTP {status}.")
        except Exception as exception:
            failure = as_node_error(exception, run, node_id)
            error = describe(failure)
            attempts.append(_attempt(len(attempts) + 1, clock, error))
            wait = policy.delay_after(len(attempts))
            if (
                len(attempts) < policy.max_attempts
                and policy.covers(failure.code)
                and time.monotonic() + wait < deadline
            ):
                time.sleep(wait)
                continue
            kept = attempts if policy.max_attempts > 1 else []
            return Outcome(failure=failure, error=error, attempts=kept)
        attempts.append(_attempt(len(attempts) + 1, clock))
        return Outcome(
            output=output, attempts=attempts if policy.max_attempts > 1 else []
        )


def _attempt(number: int, clock: float, error: dict | None = None) -> dict:
    record = {
        "attempt": number,
        "status": "failed" if error else "succeeded",
        "duration_ms": round((time.perf_counter() - clock) * 1000, 3),
    }
    if error:
        record["error"] = {"code": error["code"], "message": error["message"]}
    return record
