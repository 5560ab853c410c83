"""Which caps synchronous work counts under, and the block that holds its slot.

A synchronous run (a webhook answered when its flow completes, a manual run,
a single node), a chat turn, a save or an MCP call holds a web thread until it
ends. `admitted()` takes a slot of this process's counter (core/http/admission.py)
under every cap the work counts against, or refuses with 503/429 before the
work starts:

- the process (`SYNC_RUNS_PER_PROCESS`: threads - 2, so pages always have two);
- the account (`SYNC_RUNS_PER_ACCOUNT`): every workspace a person made,
  with their own chats and saves (docs/operations.md, "One account, one share");
- the flow's workspace (its members share it) or, for a person's own work,
  the person (`SYNC_RUNS_PER_OWNER`);
- the flow (`SYNC_RUNS_PER_FLOW`).

The background queue's share per workspace is flows/engine/fair_queue.py.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings
from django.http import HttpRequest

from core.http.admission import (
    PROCESS,
    SLOTS,
    Cap,
    Slots,
    check_queue_wait,
    waited,
)


def caps_for(
    owner_id=None, flow_id=None, workspace_id=None, account_id=None
) -> list[Cap]:
    """The process's cap, the account's (if known), the owner's (the
    workspace's when given, else the user's) and the flow's, if any."""
    limits = (
        settings.SYNC_RUNS_PER_PROCESS,
        settings.SYNC_RUNS_PER_ACCOUNT,
        settings.SYNC_RUNS_PER_OWNER,
        settings.SYNC_RUNS_PER_FLOW,
    )
    return list(_caps(owner_id, flow_id, workspace_id, account_id, limits))


@functools.lru_cache(maxsize=4096)
def _caps(owner_id, flow_id, workspace_id, account_id, limits) -> tuple[Cap, ...]:
    """`caps_for`, made once per caller and limits (a cap is frozen): four
    caps and their keys from ids as text were made for every synchronous run."""
    per_process, per_account, per_owner, per_flow = limits
    caps = [Cap(PROCESS, per_process)]
    if account_id is not None:
        caps.append(Cap(f"account:{account_id}", per_account, "This account"))
    if workspace_id is not None:
        owner = Cap(f"workspace:{workspace_id}", per_owner, "This workspace")
    else:
        owner = Cap(f"owner:{owner_id}", per_owner, "This user")
    caps.append(owner)
    if flow_id is not None:
        caps.append(Cap(f"flow:{flow_id}", per_flow, "This flow"))
    return tuple(caps)


@contextmanager
def admitted(
    request: HttpRequest,
    *,
    owner_id=None,
    flow_id=None,
    workspace_id=None,
    account_id=None,
    slots: Slots = SLOTS,
) -> Iterator[None]:
    """Hold a synchronous-work slot for the block, or refuse (503/429) before it.

    `workspace_id` is whose work a flow's run is (the flow's workspace: its
    members share the cap), else `owner_id` (the person chatting or saving);
    `flow_id` the flow being run, if any; `account_id` the person whose
    account the work is part of (all their workspaces share it). Waiting for
    a slot counts as waiting in the queue: it ends, at the latest, at
    `REQUEST_QUEUE_TIMEOUT_SECONDS`.
    """
    check_queue_wait(request)
    if owner_id is None and workspace_id is None:
        # A workspace token's caller is no person (no id): its work counts
        # under its workspace, never under one "user" every such token shares.
        workspace_id = getattr(
            getattr(request, "user", None), "token_workspace_id", None
        )
    caps = caps_for(owner_id, flow_id, workspace_id, account_id)
    budget = settings.REQUEST_QUEUE_TIMEOUT_SECONDS - waited(request, time.time())
    ticket = slots.take(
        caps,
        slow_after=settings.ADMISSION_SLOW_SECONDS,
        give_up_at=time.monotonic() + budget,
    )
    try:
        yield
    finally:
        slots.give_back(ticket, caps)
