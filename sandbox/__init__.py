"""The JavaScript sandbox: the one small module the engine calls to run user JS.

`run_code(source, variables, deadline=...)` runs a code node's body;
`evaluate(expressions, variables, deadline=...)` evaluates template and
condition expressions. Both run in a pooled worker process (see `pool.py` and
`worker.py`) inside a fresh QuickJS context, and only JSON crosses over. Swapping
the engine (say, for V8 through mini-racer) means replacing `worker.py` only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from sandbox.pool import WorkerFailure, get_pool

# Caps on what a job may send back. Logs are cut and marked truncated;
# an output over the cap fails the node with `output_too_large`.
LOG_LINES = 200
LOG_LINE_CHARS = 2000
LOG_CHARS = 64 * 1024
LINE_CUT = "… [line truncated]"
STACK_KB = 256
MESSAGE_CHARS = 2000
# What a worker may say went wrong; anything else reads as `invalid_output`.
ERROR_CODES = frozenset(
    {
        "code_error",
        "code_timeout",
        "expression_error",
        "invalid_output",
        "memory_limit",
        "output_too_large",
        "stack_overflow",
    }
)
# Time the caller grants beyond the in-QuickJS limit before killing the worker:
# process start-up, JSON in and out, a loaded machine.
KILL_MARGIN_SECONDS = 1.0


class SandboxError(Exception):
    """The code failed: `code` is machine-readable, `timed_out` ends the run so."""

    TIMEOUT_CODES = ("code_timeout", "sandbox_timeout", "sandbox_busy")

    def __init__(self, code: str, message: str, logs: list[str] | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.logs = logs or []

    @property
    def timed_out(self) -> bool:
        return self.code in self.TIMEOUT_CODES


@dataclass
class CodeResult:
    value: Any
    logs: list[str] = field(default_factory=list)
    logs_truncated: bool = False
    text: str | None = None  # the JSON text `value` was read from


def run_code(source: str, variables: dict, *, deadline: float | None = None):
    """Run `source` as a function body with `input`, `prev`, `results` in scope."""
    reply = _call({"mode": "code", "source": source}, variables, deadline)
    logs, truncated = _logs(reply)
    settled = reply.get("settled")
    if "error" in reply or not isinstance(settled, dict):
        raise _failure(reply, logs)
    return CodeResult(_decode(settled, logs), logs, truncated, settled["json"])


# When the save being checked must stop compiling code (`check_budget`).
_check_deadline: ContextVar[float | None] = ContextVar("check_deadline", default=None)


@contextmanager
def check_budget(seconds: float) -> Iterator[None]:
    """Bound the time all `syntax_error` calls in the block may take together:
    a save of many code nodes holds its web thread at most this long."""
    token = _check_deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _check_deadline.reset(token)


def syntax_error(source: str) -> str | None:
    """Why `source` does not compile as a code node's body, or None when it does
    (or when the sandbox cannot answer in the save's budget: a save is not
    refused for that; the run reports the error). The body is compiled in the
    sandbox, never run (harness.js, `__weir_parse_code`)."""
    deadline = _check_deadline.get()
    if deadline is not None and time.monotonic() >= deadline:
        return None
    try:
        reply = _call({"mode": "parse", "source": source}, {}, deadline)
    except SandboxError:
        return None
    if "error" in reply:
        return _message(reply)
    return None


def evaluate(expressions: list[str], variables: dict, *, deadline=None) -> list:
    """The value of each JavaScript expression; raises on the first that fails."""
    reply = _call(
        {"mode": "expressions", "expressions": expressions}, variables, deadline
    )
    settled = reply.get("settled")
    if "error" in reply or not isinstance(settled, list):
        raise _failure(reply, [])
    return [_decode(item, []) for item in settled]


def worker_pool():
    return get_pool(settings.SANDBOX_WORKERS, settings.CODE_MEMORY_MB)


def _call(job: dict, variables: dict, deadline: float | None) -> dict:
    timeout_ms = settings.CODE_TIMEOUT_MS
    now = time.monotonic()
    if deadline is not None:
        timeout_ms = min(timeout_ms, max(1, int((deadline - now) * 1000)))
    job.update(
        variables=json.dumps(variables, separators=(",", ":"), ensure_ascii=False),
        timeout_ms=timeout_ms,
        memory_mb=settings.CODE_MEMORY_MB,
        stack_kb=STACK_KB,
        limits={
            "logLines": LOG_LINES,
            "logLineChars": LOG_LINE_CHARS,
            "logChars": LOG_CHARS,
            "outputChars": settings.RUN_MAX_OUTPUT_BYTES,
        },
    )
    try:
        return worker_pool().call(job, now + timeout_ms / 1000 + KILL_MARGIN_SECONDS)
    except WorkerFailure as failure:
        raise SandboxError(failure.code, failure.message) from failure


def _failure(reply: dict, logs: list[str]) -> SandboxError:
    code = reply.get("error")
    if code not in ERROR_CODES:
        return SandboxError("invalid_output", "The sandbox answered nonsense.", logs)
    return SandboxError(code, _message(reply), logs)


def _message(reply: dict) -> str:
    message = reply.get("message")
    return message[:MESSAGE_CHARS] if isinstance(message, str) else ""


def _logs(reply: dict) -> tuple[list[str], bool]:
    """The reply's console lines within every cap, and whether any were cut.

    The worker applies these caps already; they are applied again here because
    the worker runs hostile code and its answer is only ever a claim.
    """
    logs = reply.get("logs")
    truncated = reply.get("logs_truncated") is not False
    if not isinstance(logs, list):
        return [], bool(logs)
    if len(logs) > LOG_LINES:
        logs, truncated = logs[:LOG_LINES], True
    kept, total = [], 0
    for line in logs:
        if not isinstance(line, str):
            truncated = True
            continue
        if len(line) > LOG_LINE_CHARS + len(LINE_CUT):
            line = line[:LOG_LINE_CHARS] + LINE_CUT
        if total + len(line) > LOG_CHARS:
            truncated = True
            break
        kept.append(line)
        total += len(line)
    return kept, truncated


def _decode(settled: dict, logs: list[str]) -> Any:
    if not isinstance(settled, dict):
        raise SandboxError("invalid_output", "The sandbox answered nonsense.", logs)
    if "error" in settled:
        raise _failure(settled, logs)
    text = settled.get("json")
    if not isinstance(text, str):
        raise SandboxError("invalid_output", "The value is not JSON.", logs)
    if len(text) > settings.RUN_MAX_OUTPUT_BYTES:
        raise SandboxError(
            "output_too_large",
            f"The output is {len(text)} characters of JSON; the limit is "
            f"{settings.RUN_MAX_OUTPUT_BYTES}.",
            logs,
        )
    try:
        return json.loads(text)
    except RecursionError:
        raise SandboxError(
            "invalid_output", "The value is nested too deep to read.", logs
        ) from None
    except ValueError as error:
        raise SandboxError("invalid_output", "The value is not JSON.", logs) from error
