"""Waits: a run parked at a wait node, woken on time or by its resume URL.

The wait node raises `Park`. The engine then stores the run `waiting`: its
steps so far, `wait_state` {node_id, mode, wake_at}, and `lease_expires_at` =
the wake time (or a callback's timeout), and lets go of it. No worker, web
thread or lease holds a waiting run, so a thousand of them cost rows only.

The supervisor or a POST to the resume URL wakes it (flows/engine/wake.py).
A synchronous run that parks becomes a background one: its caller is
answered at once, and a worker resumes it.
"""

from __future__ import annotations

import hmac
import logging
from urllib.parse import quote

from django.conf import settings
from django.utils.crypto import salted_hmac

from flows.engine import deferred, store
from flows.models import FlowRun
from flows.nodes.errors import Park

logger = logging.getLogger("weir.engine")

RESUME_SALT = "weir.flows.wait.resume"
WAITING = FlowRun.Status.WAITING
LINKED = ("callback", "form")  # the wait modes a resume link ends


def resume_token(run_id, node_id: str) -> str:
    """HMAC-SHA256 of `run_id:node_id` under a key derived from SECRET_KEY."""
    value = f"{run_id}:{node_id}"
    return salted_hmac(RESUME_SALT, value, algorithm="sha256").hexdigest()


def token_matches(run_id, node_id: str, token: str) -> bool:
    return hmac.compare_digest(resume_token(run_id, node_id), token)


def resume_path(run_id, node_id: str) -> str:
    token = resume_token(run_id, node_id)
    return f"/api/resume/{run_id}/{quote(node_id, safe='')}/{token}"


def resume_urls(run_id, nodes: list) -> dict[str, str]:
    """The resume URL of every callback wait node of a graph, by node id: what
    templates see as `run.resume_urls` (so an earlier node can send one)."""
    return {
        node["id"]: settings.BASE_URL + resume_path(run_id, node["id"])
        for node in nodes
        if isinstance(node, dict)
        and node.get("type") == "wait"
        and (node.get("data") or {}).get("mode") in LINKED
    }


def wait_of(run: FlowRun) -> dict | None:
    """Where a waiting run waits: {node_id, mode, until, resume_url} (the URL
    for callback waits only; its owner's to share), else None. No query."""
    state = run.wait_state or {}
    if run.status != WAITING or not state.get("node_id"):
        return None
    url = None
    if state.get("mode") in LINKED:
        url = settings.BASE_URL + resume_path(run.pk, state["node_id"])
    return {
        "node_id": state["node_id"],
        "mode": state.get("mode"),
        "until": state.get("wake_at"),
        "resume_url": url,
    }


def park(execution, parked: Park) -> bool:
    """Store `execution`'s run `waiting` at the node that parked it; False when
    the run is no longer this executor's (fenced by `attempts`, like a final
    write)."""
    node_id = parked.node_id
    run = execution.run
    deferred.store_now(run)  # a synchronous run may not be stored yet
    store.write_steps(execution.steps[execution.flushed :], using=run._state.db)
    execution.flushed = len(execution.steps)
    state = {
        "node_id": node_id,
        "mode": parked.mode,
        "wake_at": parked.wake_at.isoformat(),
    }
    if parked.page:
        state["page"] = parked.page
    parked_rows = FlowRun.objects.filter(
        pk=run.pk, attempts=run.attempts, status=FlowRun.Status.RUNNING
    ).update(
        status=WAITING,
        background=True,  # from now on a worker resumes it
        wait_state=state,
        lease_expires_at=parked.wake_at,
        results=execution.results,
        response=run.response,
        retry_state=None,
    )
    if parked_rows:
        run.status, run.background, run.wait_state = WAITING, True, state
        run.lease_expires_at, run.results = parked.wake_at, execution.results
        logger.info("Run %s waits at %s until %s", run.id, node_id, state["wake_at"])
    return bool(parked_rows)
