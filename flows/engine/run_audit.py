"""The audit event of a run someone started: the one place `run.started` is
recorded, by `run_flow` and `enqueue_run` when they are told who started it."""

from __future__ import annotations

from accounts.audit.actor import Actor
from accounts.audit.record import record
from flows.models import FlowRun


def record_started(actor: Actor | None, run: FlowRun) -> None:
    """`run.started` in the audit log for a run a person or a token started:
    the run endpoint, "Run this node", a tools/call over `/api/mcp`. Runs of
    webhooks, schedules and agents pass no actor (they would flood it)."""
    if actor is None:
        return
    record(
        "run.started",
        actor,
        run,
        target_label=f"{run.flow.name} (v{run.flow_version})",
        changes={"flow_id": str(run.flow_id), "status": run.status},
    )
