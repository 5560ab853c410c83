"""One node's attempts: it runs, and with a `retry` policy (flows/graph/retry.py)
runs again after a wait, as long as the failure is one the policy covers and
the run's deadline leaves room for the wait.

A synchronous run sleeps through the wait, bounded by the run's deadline, and
stops waiting when the run is cancelled meanwhile. A background run with a
wait of DEFER_AFTER_SECONDS or more raises `RequeueForRetry` instead: the run goes
back to the queue to be taken after the wait, and the attempts made so far
travel with it (`FlowRun.retry_state`), so the worker is free meanwhile
(docs/engine.md, "Retries").
"""

from __future__ import annotations

import logging
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.redact import redact_shapes
from flows.engine import lease
from flows.engine.plan import PlannedNode
from flows.files import FileError
from flows.models import FlowRun
from flows.nodes import NodeContext, NodeError
from flows.nodes.errors import FlowControl

logger = logging.getLogger("weir.engine")

# Shorter waits are slept through: re-queueing costs more than they do.
DEFER_AFTER_SECONDS = 1.0


class RequeueForRetry(Exception):
    """Queue the run again to retry node `node_id` after `wait` seconds."""

    def __init__(self, node_id: str, wait: float, attempts: list[dict]):
        super().__init__(f"retry {node_id} in {wait:g} s")
        self.node_id, self.wait, self.attempts = node_id, wait, attempts


def redacted_traceback(exception: BaseException, redact: Callable[[str], str]) -> str:
    """`exception`'s traceback as text, through `redact`: the text of an
    exception may hold a credential value the run opened or a token a node saw,
    and a log line is stored and shipped like any output."""
    return redact("".join(traceback.format_exception(exception))).rstrip("\n")


def as_node_error(
    exception: Exception,
    run: FlowRun,
    node_id: str,
    redact: Callable[[str], str] = redact_shapes,
) -> NodeError:
    """A node's failure as a NodeError; anything unexpected is a logged bug,
    its traceback redacted like the run's outputs (`redact`)."""
    if isinstance(exception, NodeError):
        return exception
    if isinstance(exception, FileError):  # file_too_large, file_missing, ...
        return NodeError(exception.code, exception.message)
    logger.error(
        "Node %s of run %s raised\n%s",
        node_id,
        run.id,
        redacted_traceback(exception, redact),
    )
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
    cancelled: bool = False  # the run was cancelled while the node waited to retry


def attempt_node(
    planned: PlannedNode,
    data: dict,
    ctx: NodeContext,
    *,
    run: FlowRun,
    deadline: float,
    check: Callable[[Any], Any],
    describe: Callable[[NodeError], dict],
    redact: Callable[[str], str] = redact_shapes,
    prior: list[dict] = (),
    defer: bool = False,
) -> Outcome:
    """Run the node until it succeeds or its policy gives up.

    `check` turns a raw output into the stored one (redacted, within budget)
    or raises; `describe` turns a failure into the stored error, and `redact`
    a logged traceback into a storable one (the run's redactor). `prior` are
    the attempts made before the run was queued again; with `defer`, a long
    wait raises `RequeueForRetry` instead of sleeping.
    """
    node_id = planned.node["id"]
    policy = planned.policy
    attempts: list[dict] = list(prior)
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
        except FlowControl:
            raise  # a stop or a ContinueLater is the run's business, not a failure
        except Exception as exception:
            failure = as_node_error(exception, run, node_id, redact)
            error = describe(failure)
            attempts.append(_attempt(len(attempts) + 1, clock, error))
            if failure.code == "cancelled" and lease.is_cancelled(run.id):
                # The node stopped because the run was cancelled (a for_each
                # between items): no retry, and the run ends `cancelled`.
                return Outcome(failure=failure, error=error, cancelled=True)
            wait = policy.delay_after(len(attempts))
            if (
                len(attempts) < policy.max_attempts
                and _covered(policy, failure)
                and time.monotonic() + wait < deadline
            ):
                if defer and wait >= DEFER_AFTER_SECONDS:
                    raise RequeueForRetry(node_id, wait, attempts) from exception
                if _cancelled_during(run, wait):
                    return Outcome(
                        failure=failure, error=error, attempts=attempts, cancelled=True
                    )
                continue
            kept = attempts if policy.max_attempts > 1 else []
            return Outcome(failure=failure, error=error, attempts=kept)
        if policy.max_attempts == 1:
            return Outcome(output=output)  # no attempts kept for one
        attempts.append(_attempt(len(attempts) + 1, clock))
        return Outcome(output=output, attempts=attempts)


def _covered(policy, failure: NodeError) -> bool:
    """Whether the policy retries this failure: by its code, or by the HTTP
    status an http_request node's `http_error` carries (`on: [503]`)."""
    status = failure.details.get("status")
    return policy.covers(failure.code) or (
        isinstance(status, int) and policy.retried_status(status)
    )


def _cancelled_during(run: FlowRun, wait: float) -> bool:
    """Sleep `wait` seconds; True, at once, if the run is cancelled meanwhile
    (the lease thread notes cancels every `lease.TICK_SECONDS`)."""
    end = time.monotonic() + wait
    while not lease.is_cancelled(run.id):
        remaining = end - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(remaining, lease.TICK_SECONDS))
    return True


def _attempt(number: int, clock: float, error: dict | None = None) -> dict:
    record = {
        "attempt": number,
        "status": "failed" if error else "succeeded",
        "duration_ms": round((time.perf_counter() - clock) * 1000, 3),
    }
    if error:
        record["error"] = {"code": error["code"], "message": error["message"]}
    return record
