"""The delay node: waits, then passes its input on.

It sleeps in ticks of `CANCEL_CHECK_SECONDS` and stops as soon as the run is
cancelled (the lease thread notes a cancel within its tick, flows/engine/lease.py),
as a retry wait does, instead of holding a cancelled run `running` to the end.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from flows.nodes.base import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import integer_between

# A set lookup per tick; the lease thread sees a cancel within its own tick.
CANCEL_CHECK_SECONDS = 0.1


class DelayNode(NodeKind):
    type = "delay"
    label = "Delay"
    description = "Waits, then passes its input on."
    form_fields = (FormField("data.ms", "Wait (ms)", widget="number", min=0),)
    default_data = {"ms": 1000}

    def validate_data(self, data: dict) -> list[FieldError]:
        # Longer than a whole run could never finish.
        return integer_between(data, "ms", 0, int(settings.RUN_TIMEOUT_SECONDS * 1000))

    def run(self, data: dict, ctx: NodeContext) -> Any:
        seconds = data["ms"] / 1000
        remaining = ctx.deadline - time.monotonic()
        if seconds > remaining:
            _sleep(ctx, remaining)
            raise NodeTimeout(
                "run_timeout", "The delay would outlast the run's time limit."
            )
        _sleep(ctx, seconds)
        return ctx.prev


def _sleep(ctx: NodeContext, seconds: float) -> None:
    """Sleep `seconds`; raise `cancelled` at once if the run is cancelled."""
    end = time.monotonic() + seconds
    while (remaining := end - time.monotonic()) > 0:
        if ctx.calls is not None and ctx.calls.cancelled():
            waited = int((seconds - remaining) * 1000)
            raise NodeError(
                "cancelled",
                f"The run was cancelled during the delay, after {waited} of "
                f"{int(seconds * 1000)} ms.",
            )
        time.sleep(min(remaining, CANCEL_CHECK_SECONDS))
