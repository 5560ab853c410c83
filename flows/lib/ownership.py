"""Whose a flow's per-owner limits are, in one place.

A flow runs as its workspace: with the workspace's credentials, reached by
the workspace's members by their role (flows/workspaces/access.py). What is
still counted "per owner" (slow synchronous runs) asks `owner_key`, so
where that count lives changes here, not in each caller.
"""

from __future__ import annotations


def owner_key(flow):
    """The key that a flow's per-owner limits count under."""
    return flow.created_by_id
