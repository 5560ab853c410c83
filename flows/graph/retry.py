"""A node's `retry` setting (docs/api.md): checked at save, read by the engine.

`retry: {max_attempts, backoff, delay_ms, on}` beside the node's `data`:

- `max_attempts` 1-10 (1 = no retry);
- `backoff` "fixed" (every wait is `delay_ms`) or "exponential" (`delay_ms`,
  then twice that, four times...; at most MAX_DELAY_MS);
- `delay_ms` 0 to MAX_DELAY_MS, the first wait;
- `on`: which failures are retried: error codes (`http_error`, `timeout`...)
  and HTTP statuses (503, or "5xx" for a whole class). An http_request answer
  with a listed status counts as a failed attempt (`http_status`). Empty or
  absent: every error, and no status.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ATTEMPTS = 10
MAX_DELAY_MS = 60_000
BACKOFFS = ("fixed", "exponential")
STATUS_PATTERN = re.compile(r"[1-5]([0-9]{2}|xx)")
CODE_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,63}")


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 1
    backoff: str = "fixed"
    delay_ms: int = 0
    on: tuple[str, ...] = ()

    def delay_after(self, attempt: int) -> float:
        """Seconds to wait after failed attempt number `attempt` (1-based)."""
        factor = 2 ** (attempt - 1) if self.backoff == "exponential" else 1
        return min(self.delay_ms * factor, MAX_DELAY_MS) / 1000

    def covers(self, code: str) -> bool:
        """Whether a failure with this code is retried (`http_status` comes
        only from a status listed in `on`)."""
        return not self.on or code in self.on or code == "http_status"

    def retried_status(self, status: int) -> bool:
        """Whether an HTTP answer with this status counts as a failed attempt."""
        text = str(status)
        return text in self.on or f"{text[0]}xx" in self.on


def policy_of(node: dict) -> RetryPolicy:
    """The node's policy; no `retry` means one attempt. Assumes a valid graph."""
    retry = node.get("retry")
    if not isinstance(retry, dict):
        return RetryPolicy()
    return RetryPolicy(
        max_attempts=retry.get("max_attempts", 1),
        backoff=retry.get("backoff", "fixed"),
        delay_ms=retry.get("delay_ms", 0),
        on=tuple(str(item) for item in retry.get("on") or ()),
    )


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def retry_problems(retry) -> list[tuple[str, str]]:
    """(field, message) for each problem of a node's `retry` value."""
    if retry is None:
        return []
    if not isinstance(retry, dict):
        return [("retry", "Retry must be an object like {max_attempts: 3}.")]
    problems = []
    unknown = sorted(set(retry) - {"max_attempts", "backoff", "delay_ms", "on"})
    if unknown:
        problems.append(("retry", f"Unknown retry settings: {', '.join(unknown)}."))
    attempts = retry.get("max_attempts", 1)
    if not _whole(attempts) or not 1 <= attempts <= MAX_ATTEMPTS:
        problems.append(
            ("retry.max_attempts", f"Attempts must be a whole number 1-{MAX_ATTEMPTS}.")
        )
    if retry.get("backoff", "fixed") not in BACKOFFS:
        problems.append(("retry.backoff", 'Backoff must be "fixed" or "exponential".'))
    delay = retry.get("delay_ms", 0)
    if not _whole(delay) or not 0 <= delay <= MAX_DELAY_MS:
        problems.append(
            ("retry.delay_ms", f"The delay must be 0-{MAX_DELAY_MS} milliseconds.")
        )
    on = retry.get("on", [])
    if not isinstance(on, list) or len(on) > 20:
        problems.append(("retry.on", "Retry on must be a list of up to 20 items."))
    else:
        for item in on:
            text = str(item) if _whole(item) else item
            if not isinstance(text, str) or not (
                STATUS_PATTERN.fullmatch(text) or CODE_PATTERN.fullmatch(text)
            ):
                problems.append(
                    (
                        "retry.on",
                        f"{item!r} is neither an error code (like http_error) nor "
                        "an HTTP status (like 503 or 5xx).",
                    )
                )
                break
    return problems
