"""The audit event of a run started by hand from the API."""

from __future__ import annotations

from accounts.audit.actor import Actor
from accounts.audit.record import record
from flows.models import FlowRun


def record_started(request, run: FlowRun) -> None:
    """`run.started` in the audit log: a run started by hand (not by a webhook,
    a schedule or an agent, which would flood it)."""
    record(
        "run.started",
        Actor.from_request(request),
        run,
        target_label=f"{run.flow.name} (v{run.flow_version})",
        changes={"flow_id": str(run.flow_id), "status": run.status},
    )
