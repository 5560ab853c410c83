"""Who a flow acts for, in one place.

A flow runs as its owner: with the owner's credentials, within the owner's
limits, and only while the owner's account is active. Every check that asks
"whose flow is this" goes through these helpers, so that moving flows into
workspaces (issue 23) changes this module, not each caller.
"""

from __future__ import annotations


def owner_key(flow) -> int:
    """The key that a flow's per-owner limits and queues count under."""
    return flow.owner_id


def may_act_for(user, flow) -> bool:
    """Whether `user` may decide what `flow` does with its owner's credentials:
    change its graph or its owner. Its owner may, and superusers; other staff
    with flow rights may not (they would read the owner's secrets)."""
    return user.is_superuser or (flow.owner_id is not None and flow.owner_id == user.pk)
