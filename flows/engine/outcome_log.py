"""A run's outcome as one line on the `weir.runs` logger, with an `event`
the JSON formatter passes through: what a log stream (docs/operations.md,
"Log streaming") ships beside the audit events. Written once the run's end is
stored (flows/engine/final_write.py), after any transaction around it
commits, and never with the run's input or results: only ids, the status,
the error's code and how long it took."""

from __future__ import annotations

import logging

from django.db import transaction

logger = logging.getLogger("weir.runs")


def outcome_event(run, status: str, duration_ms: float) -> dict:
    error = run.error if isinstance(run.error, dict) else {}
    return {
        "type": "run.finished",
        "run": str(run.pk),
        "flow": str(run.flow_id),
        "workspace": str(run.flow.workspace_id),
        "flow_version": run.flow_version,
        "trigger": run.trigger,
        "status": status,
        "error_code": error.get("code"),
        "duration_ms": round(duration_ms, 1),
    }


def log_outcome(run, status: str, duration_ms: float) -> None:
    level = logging.INFO if status == "succeeded" else logging.WARNING
    if not logger.isEnabledFor(level):  # LOG_LEVEL above it, and not shipped
        return
    event = outcome_event(run, status, duration_ms)
    transaction.on_commit(
        lambda: logger.log(
            level,
            "Run %s of flow %s %s",
            event["run"],
            event["flow"],
            status,
            extra={"event": event},
        )
    )
