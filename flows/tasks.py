"""Weir's tasks on Django's tasks framework (flows/engine/background.py)."""

from __future__ import annotations

from django_tasks import task

from flows.engine import background


@task
def execute_run(run_id: str) -> str | None:
    """Execute the queued background run `run_id` (idempotent: see `claim`)."""
    return background.execute_queued(run_id)
