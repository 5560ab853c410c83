"""Running a run again (issue 38): `rerun` and `retry`.

`rerun` starts a new run of the run's flow, on the flow's current version,
with the same input, trigger and trigger facts (`request_meta`: a webhook's
method, path, query and kept headers). Only the audit log links the two.

`retry` runs a run that failed (`failed`, `timed_out` or `interrupted`) again
from its failed node. The new run, whose `retry_of` names the old one, starts
with copies of the old run's succeeded steps, which the engine replays as it
replays a resumed run's stored steps (`Execution.replay`): their outputs are
taken and their edges fire, but their nodes do not run again (no HTTP call is
repeated, no email sent twice). Then the failed node and what follows it run.

A retry runs the flow's current version, so a fix saved since the failure
takes effect. A step is reused only where it is still the same computation:
its node is in the current graph with the same type and settings as in the
run's version, every node feeding it (by the current edges) was reused too,
and it is not the node the run failed at (a stop node ends a run `failed`
though its own step succeeded). Any other node runs again.
"""

from __future__ import annotations

from flows.engine import deferred
from flows.engine.background import enqueue_run
from flows.engine.new_run import new_run
from flows.engine.runner import Execution
from flows.engine.start import run_flow
from flows.history.models import FlowVersion
from flows.models import Flow, FlowRun, RunStep

RETRYABLE = (
    FlowRun.Status.FAILED,
    FlowRun.Status.TIMED_OUT,
    FlowRun.Status.INTERRUPTED,
)
# A node's keys that do not change what it computes.
COSMETIC = ("name", "position")
# What the copy of a reused step logs after the original run's lines.
REUSED_LOG = "Reused from run {run_id}: the node did not run again."


class CannotRetry(Exception):
    """The run cannot be retried from its failed node (the API's 409)."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code


def check_retryable(run: FlowRun) -> None:
    """Raise CannotRetry unless `run` ended failed, timed out or interrupted."""
    if run.status in FlowRun.UNFINISHED:
        raise CannotRetry(
            "run_unfinished",
            f"The run is still {run.status}: retry it once it has ended.",
        )
    if run.status not in RETRYABLE:
        raise CannotRetry(
            "run_not_failed",
            f"The run ended {run.status}: only a failed, timed-out or interrupted "
            "run can be retried from its failed node. Re-run it instead.",
        )


def rerun(run: FlowRun, *, background: bool = False) -> FlowRun:
    """A new run like `run` on its flow's current version: finished, or
    queued for a worker when `background`."""
    flow, meta = run.flow, run.request_meta or {}
    if background:
        return enqueue_run(flow, run.input, run.trigger, request_meta=meta)
    return run_flow(
        flow, run.input, run.trigger, request_meta=meta, **_options(flow, meta)
    )


def retry(run: FlowRun, *, background: bool = False) -> FlowRun:
    """`run` again from its failed node (CannotRetry if it did not fail):
    finished, or queued for a worker when `background`."""
    check_retryable(run)
    flow, meta = run.flow, run.request_meta or {}
    steps = reused_steps(run, flow)
    if background:
        return enqueue_run(
            flow, run.input, run.trigger, request_meta=meta, retry_of=run, steps=steps
        )
    again = new_run(flow, run.trigger, run.input, meta, retry_of=run)
    deferred.defer(again)  # stored when it ends, or once it lasts, as any run
    key = str(again.id)
    rows = [{**row, "run_id": key, "position": n} for n, row in enumerate(steps)]
    execution = Execution(flow, again, reused_steps=rows, **_options(flow, meta))
    return execution.execute()


def _options(flow: Flow, meta: dict) -> dict:
    """What a run's facts ask of its executor: the webhook chain's hops, and
    the builder's pins for its test runs (as flows/engine/background.py)."""
    pins = flow.pins if meta.get("use_pins") else None
    return {"hops": int(meta.get("hops", 0)), "pins": pins}


def reused_steps(run: FlowRun, flow: Flow) -> list[dict]:
    """Copies of `run`'s steps that a retry on `flow`'s current graph takes as
    they are (see the module's docstring), in their order; one query, two
    when the flow was saved since the run."""
    now = _by_id(flow.nodes)
    if run.flow_version == flow.version:
        then = now
    else:
        version = FlowVersion.objects.filter(flow=flow, number=run.flow_version)
        then = _by_id(version.values_list("nodes", flat=True).first() or [])
    feeds: dict[str, set] = {}
    for edge in flow.edges:
        if isinstance(edge, dict):
            feeds.setdefault(edge.get("target"), set()).add(edge.get("source"))
    failed_at = (run.error or {}).get("node_id")
    reused, rows = set(), []
    for step in run.steps.filter(status=RunStep.Status.SUCCEEDED).order_by("position"):
        node = now.get(step.node_id)
        if (
            node is None
            or step.node_id == failed_at
            or _what_it_does(node) != _what_it_does(then.get(step.node_id))
            or not feeds.get(step.node_id, set()) <= reused
        ):
            continue
        reused.add(step.node_id)
        rows.append(_copy(step, node, run))
    return rows


def _by_id(nodes) -> dict[str, dict]:
    return {node.get("id"): node for node in nodes or [] if isinstance(node, dict)}


def _what_it_does(node: dict | None) -> dict | None:
    if node is None:
        return None
    return {key: value for key, value in node.items() if key not in COSMETIC}


def _copy(step: RunStep, node: dict, run: FlowRun) -> dict:
    """A step row (without `run_id` and `position`) replaying `step`."""
    return {
        "node_id": step.node_id,
        "node_type": step.node_type,
        "node_name": (node.get("name") or "")[:200],
        "status": step.status,
        "handle": step.handle,
        "output": step.output,
        "error": step.error,
        "logs": [*step.logs, REUSED_LOG.format(run_id=run.id)],
        "started_at": step.started_at,
        "finished_at": step.finished_at,
        "duration_ms": step.duration_ms,
        "attempts": step.attempts,
    }
