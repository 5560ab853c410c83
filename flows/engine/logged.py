"""Log lines written while a run executes carry its ids (docs/operations.md, "Logs").

Two decorators for `Execution`'s methods: the run and flow ids around a whole
run, the node id around each node, kept in the context variables the log
formatter reads (`core.telemetry.context`).
"""

from __future__ import annotations

import functools

from core.redact import redacting
from core.telemetry import context as log_context


def logged_as_run(method):
    """Every log line written inside carries the run's and its flow's ids,
    and is redacted with the run's redactor (the credential values it opened)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        with (
            log_context.bound(run_id=self.key, flow_id=self.flow.id),
            redacting(self.redactor),
        ):
            return method(self, *args, **kwargs)

    return wrapper


def logged_as_node(method):
    """Every log line written inside carries the node's id as well."""

    @functools.wraps(method)
    def wrapper(self, planned, *args, **kwargs):
        with log_context.bound(node_id=planned.node["id"]):
            return method(self, planned, *args, **kwargs)

    return wrapper
