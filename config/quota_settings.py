"""What one workspace or account may hold: schedules, team workspaces,
invitations, queued runs (docs/api.md, "Limits")."""

from __future__ import annotations


def read(env) -> dict:
    return {
        "SCHEDULED_FLOWS_PER_OWNER": env.int("SCHEDULED_FLOWS_PER_OWNER", default=50),
        # Team workspaces one account may own (beyond its personal one): the
        # schedule and queue caps count per workspace (accounts/workspaces/members.py).
        "WORKSPACES_PER_USER": env.int("WORKSPACES_PER_USER", default=10),
        # Invitations waiting for an answer in one workspace (a row per name
        # typed, accounts/workspaces/invitations.py): 409 for a new one past it.
        "INVITATIONS_PER_WORKSPACE": env.int("INVITATIONS_PER_WORKSPACE", default=100),
        # Background runs one account may have queued before a request adding
        # one is 429 (flows/engine/fair_queue.py).
        "QUEUED_RUNS_PER_OWNER": env.int("QUEUED_RUNS_PER_OWNER", default=100),
    }
