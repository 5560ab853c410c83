"""The context every log line carries: the request id, and the run and node.

Context variables, so each thread (gunicorn's threads) and each task sees its
own values. The request middleware sets `request_id`; the engine sets `run_id`
and `flow_id` around a run and `node_id` around each node
(`flows/engine/runner.py`). `core.telemetry.logs.ContextFilter` copies them
onto every log record.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from contextvars import ContextVar

FIELDS = ("request_id", "run_id", "flow_id", "node_id")

_values: dict[str, ContextVar[str | None]] = {
    name: ContextVar(name, default=None) for name in FIELDS
}


def bound(**values) -> AbstractContextManager[None]:
    """Set these fields (str() of each value) for the block, then restore them."""
    return _Bound(values)


class _Bound:
    """`bound`'s block. A class rather than a generator-based context manager:
    the engine enters one around every run and every node, and a generator's
    context manager costs several calls more on each way in and out."""

    __slots__ = ("values", "tokens")

    def __init__(self, values: dict):
        self.values = values

    def __enter__(self) -> None:
        self.tokens = [
            (_values[name], _values[name].set(str(value)))
            for name, value in self.values.items()
        ]

    def __exit__(self, *exc_info) -> None:
        for var, token in reversed(self.tokens):
            var.reset(token)


def set_request_id(value: str | None) -> None:
    """For the request middleware: kept until the request is finished, so
    Django's own line about a 4xx or 5xx answer, written after the middleware
    returns, still carries it."""
    _values["request_id"].set(value)


def current() -> dict[str, str]:
    """The fields set now; unset ones are left out."""
    return {name: value for name, var in _values.items() if (value := var.get())}
