"""The context every log line carries: the request id, and the run and node.

Context variables, so each thread (gunicorn's threads) and each task sees its
own values. The request middleware sets `request_id`; the engine sets `run_id`
and `flow_id` around a run and `node_id` around each node
(`flows/engine/runner.py`). `core.telemetry.logs.ContextFilter` copies them
onto every log record.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

FIELDS = ("request_id", "run_id", "flow_id", "node_id")

_values: dict[str, ContextVar[str | None]] = {
    name: ContextVar(name, default=None) for name in FIELDS
}


@contextmanager
def bound(**values) -> Iterator[None]:
    """Set these fields (str() of each value) for the block, then restore them."""
    tokens = [
        (_values[name], _values[name].set(str(value))) for name, value in values.items()
    ]
    try:
        yield
    finally:
        for var, token in reversed(tokens):
            var.reset(token)


def set_request_id(value: str | None) -> None:
    """For the request middleware: kept until the request is finished, so
    Django's own line about a 4xx or 5xx answer, written after the middleware
    returns, still carries it."""
    _values["request_id"].set(value)


def current() -> dict[str, str]:
    """The fields set now; unset ones are left out."""
    return {name: value for name, var in _values.items() if (value := var.get())}
