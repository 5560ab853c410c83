"""What one run may store: each node's output, the run's results and its logs.

Outputs are checked as they are made (storable JSON within RUN_MAX_OUTPUT_BYTES,
all of them within RUN_MAX_RESULT_BYTES), and console lines count against
RUN_MAX_LOG_CHARS for the whole run: each step's logs are capped in the
sandbox, but a run of many nodes would still store (and answer) megabytes.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings

from core.storable import MAX_NESTING, Unstorable, check_storable
from flows.nodes import NodeError

LOG_BUDGET_MARKER = "[the run's log budget is spent: later lines were dropped]"


def json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


class RunBudget:
    """The bytes of results and characters of logs one run has used so far."""

    def __init__(self):
        self.result_bytes = 0
        self.log_chars = 0

    def check_output(self, output: Any, text: str | None = None) -> None:
        """Fail the node (`invalid_output`, `output_too_large`) unless storable.

        `text`: the output's `json_text`, when the caller has made it already.
        """
        try:
            if text is None:
                text = json_text(output)
        except RecursionError:
            raise NodeError(
                "invalid_output",
                f"The node's output is nested more than {MAX_NESTING} levels deep.",
            ) from None
        except (TypeError, ValueError) as error:
            raise NodeError(
                "invalid_output", f"The node's output is not JSON: {error}"
            ) from error
        try:
            check_storable(output, text=text, what="The node's output")
        except Unstorable as problem:
            raise NodeError("invalid_output", str(problem)) from None
        size = len(text)
        if size > settings.RUN_MAX_OUTPUT_BYTES:
            raise NodeError(
                "output_too_large",
                f"The node's output is {size} bytes of JSON; the limit is "
                f"{settings.RUN_MAX_OUTPUT_BYTES}.",
            )
        self.result_bytes += size
        if self.result_bytes > settings.RUN_MAX_RESULT_BYTES:
            raise NodeError(
                "output_too_large",
                "The run's results passed "
                f"{settings.RUN_MAX_RESULT_BYTES} bytes of JSON.",
            )

    def within_log_budget(self, logs: list[str]) -> list[str]:
        """The lines that fit the run's log budget; a marker where the rest went."""
        left = settings.RUN_MAX_LOG_CHARS - self.log_chars
        kept = []
        for line in logs:
            if len(line) > left:
                kept.append(LOG_BUDGET_MARKER)
                break
            kept.append(line)
            left -= len(line)
        self.log_chars = settings.RUN_MAX_LOG_CHARS - left
        return kept
