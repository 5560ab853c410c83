"""The delay node: waits, then passes its input on."""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind, NodeTimeout
from flows.nodes.checks import integer_between


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
            time.sleep(max(0.0, remaining))
            raise NodeTimeout(
                "run_timeout", "The delay would outlast the run's time limit."
            )
        time.sleep(seconds)
        return ctx.prev
