"""`run_flow`: a run of a flow, started here and executed in the caller's
thread (flows/engine/runner.py has how a run executes and is stored)."""

from __future__ import annotations

from accounts.audit.actor import Actor
from core.storable import Unstorable, check_storable
from flows.engine import deferred
from flows.engine.deliveries import start_delivery
from flows.engine.new_run import new_run
from flows.engine.run_audit import record_started
from flows.engine.runner import Execution
from flows.files import RunFiles
from flows.models import Flow, FlowRun


def run_flow(
    flow: Flow,
    input: dict,
    trigger: str,
    *,
    request_meta: dict | None = None,
    delivery_id: str = "",
    deadline: float | None = None,
    depth: int = 0,
    hops: int = 0,
    pins: dict | None = None,
    only: set[str] | None = None,
    called_by: FlowRun | None = None,
    files: RunFiles | None = None,
    started_by: Actor | None = None,
    input_checked: bool = False,
) -> FlowRun:
    """Run `flow` once with `input` and return the stored, finished FlowRun.

    Never raises for a node failure: the run ends `failed` or `timed_out` and
    `run.as_result()` describes it. Runs synchronously in the caller's thread.
    `request_meta` holds safe facts about the triggering HTTP request only.
    `deadline` (a `time.monotonic()` value) ends the run sooner than
    RUN_TIMEOUT_SECONDS would: a tool run ends with the run that asked for it.
    `depth` counts the agents waiting above this run (an agent's tool call
    passes its own depth + 1); nodes read it from their context.
    `delivery_id` makes the run the one run of that webhook delivery; raises
    `deliveries.DeliveryExists` when the delivery already has one (callers
    with a delivery id go through `flows.engine.once.run_once`).
    `hops` is the run's place in a chain of webhook calls (the webhook view
    passes the caller's `Weir-Hops`); its http_request nodes send `hops + 1`.
    `pins` (node id -> output) stand in for those nodes, and `only` limits the
    run to these nodes: the builder's test runs (flows/graph/pins.py).
    `called_by` is the run whose call_flow or for_each node started this one
    (flows/engine/calls.py). `files` holds what was stored for the run
    before it began (a webhook's uploads, flows/files/run_files.py): they
    count towards its files' limit and are claimed with it. `started_by`,
    the person or token who started it by hand, is audited as `run.started`
    once the run has ended (flows/engine/run_audit.py). `input_checked`: the
    caller has checked `input` with `check_storable` itself (the webhook, as
    it parsed the body), so it is not walked again.
    """
    refused = None
    try:
        if not input_checked:
            check_storable(input, what="The run's input")
    except Unstorable as problem:  # callers check first; this is the last guard
        input, refused = {}, str(problem)
    if delivery_id:
        run = start_delivery(
            flow, trigger, input, request_meta or {}, delivery_id, called_by
        )
    else:  # stored when it ends, or once it lasts (flows/engine/deferred.py)
        run = new_run(flow, trigger, input, request_meta or {}, called_by=called_by)
        deferred.defer(run)
    execution = Execution(
        flow,
        run,
        deadline=deadline,
        depth=depth,
        hops=hops,
        pins=pins,
        only=only,
        files=files,
    )
    if refused is not None:
        error = {"node_id": None, "code": "invalid_input", "message": refused}
        execution.finish(FlowRun.Status.FAILED, error)
    else:
        run = execution.execute()
    record_started(started_by, run)
    return run
