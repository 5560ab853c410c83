"""A run's step rows: each node's outcome recorded as a row, buffered, and
written in batches.

A mixin of `Execution` (flows/engine/runner.py), kept apart as FinalWrite is:
the engine decides what happened, this shapes the row (redacted logs within
the run's log budget) and decides when the buffer goes to the database.
"""

from __future__ import annotations

import time
from typing import Any

from django.utils import timezone

from core.storable import storable_text
from flows.engine import deferred, store
from flows.nodes import NodeContext

# A long run writes its buffered steps at least this often, so a crash loses
# at most this much of its history.
STEP_FLUSH_SECONDS = 1.0


class StepLog:
    """Needs `run`, `key`, `steps`, `flushed`, `last_flush`, `step_by_step`,
    `redactor` and `budget` (Execution's)."""

    def record(
        self,
        node: dict,
        status: str,
        *,
        ctx: NodeContext | None = None,
        output: Any = None,
        error: dict | None = None,
        started_at=None,
        clock: float | None = None,
        attempts: list | None = None,
        note: str | None = None,
    ) -> None:
        redact = self.redactor.text
        logs = [storable_text(redact(line)) for line in ctx.logs] if ctx else []
        if note:
            logs.append(note)
        if ctx and ctx.logs_truncated:
            logs.append("[more log lines were dropped]")
        if logs:  # nothing to fit otherwise
            logs = self.budget.within_log_budget(logs)
        self.steps.append(
            {
                "run_id": self.key,
                "position": len(self.steps),
                "node_id": node["id"],
                "node_type": node.get("type", ""),
                "node_name": (node.get("name") or "")[:200],
                "status": status,
                "handle": (ctx.handle or "") if ctx else "",
                "output": output,
                "error": error,
                "logs": logs,
                "started_at": started_at,
                "finished_at": timezone.now() if started_at else None,
                "duration_ms": (time.perf_counter() - clock) * 1000 if clock else None,
                "attempts": attempts or [],
            }
        )
        if self.step_by_step or time.monotonic() - self.last_flush > STEP_FLUSH_SECONDS:
            self.flush_steps()

    def flush_steps(self) -> None:
        deferred.store_now(self.run)  # the steps' run row first
        store.write_steps(self.steps[self.flushed :], using=self.run._state.db)
        self.flushed = len(self.steps)
        self.last_flush = time.monotonic()
