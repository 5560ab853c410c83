"""Runs that a node starts of another flow: call_flow and for_each.

A child is a run of its own (trigger `call`, `called_by` its parent run), so
it shows on its own page and on its parent's. `call` runs it inline, in the
parent's thread and with the parent's deadline: no worker waits for another,
whatever the worker count. `start` queues it. Each child has the delivery id
`call:<parent run>:<node>[:<item>]`, so a resumed parent finds the child it
already ran (one row, never run twice once finished); a child left `running`
by a dead process is marked interrupted and run again in the same row.

The called flow is checked again at run time (in the run's workspace, not gone): the
save-time check in flows/refs.py may be stale. Depth counts the calls
above a run (`request_meta.call_depth`); past FLOW_CALL_MAX_DEPTH the call
fails `call_too_deep`, which stops a flow that calls itself.

FlowsConfig.ready imports this module, which plugs `ChildRuns` into the
runner (the runner cannot import this module: this one imports the runner).
"""

from __future__ import annotations

import functools
import time
import uuid
from typing import Any

import jsonschema
from django.conf import settings
from django.db.models import Q
from django.db.models.fields.json import KT
from django.db.models.lookups import Exact
from django.utils import timezone

from flows.engine import deferred, lease, store
from flows.engine.once import run_once
from flows.engine.runner import Execution
from flows.models import Flow, FlowRun
from flows.nodes import NodeError, NodeTimeout
from flows.nodes.errors import ContinueLater

FINISHED = (
    FlowRun.Status.SUCCEEDED,
    FlowRun.Status.FAILED,
    FlowRun.Status.TIMED_OUT,
    FlowRun.Status.CANCELLED,
)

LOOK_UP = object()  # `ChildRuns.call`'s default: find an earlier run by its delivery id
# How often a parent looks at a child running elsewhere (see `ChildRuns.outlast`).
POLL_SECONDS = 0.1


class ChildRuns:
    """What `ctx.calls` offers the node `node_id` of `execution`'s run."""

    def __init__(self, execution: Execution, node_id: str):
        self.execution = execution
        self.parent = execution.run
        self.node_id = node_id

    # Read only by a node that calls a flow; every node is given a ChildRuns.
    @functools.cached_property
    def depth(self) -> int:
        return int(self.parent.request_meta.get("call_depth", 0)) + 1

    @functools.cached_property
    def root(self) -> str:
        """The run at the top of the call tree: FLOW_CALL_MAX_CHILDREN counts
        under it."""
        return str(self.parent.request_meta.get("call_root") or self.parent.id)

    def flow(self, flow_id: Any) -> Flow:
        """The flow to call: one of the run's workspace, else `flow_missing`."""
        flow = Flow.objects.filter(
            pk=_uuid_or_none(flow_id), workspace_id=self.execution.flow.workspace_id
        ).first()
        if flow is None:
            raise NodeError(
                "flow_missing",
                "The called flow does not exist or is in another workspace.",
            )
        if self.depth > settings.FLOW_CALL_MAX_DEPTH:
            raise NodeError(
                "call_too_deep",
                f"Runs may call runs {settings.FLOW_CALL_MAX_DEPTH} deep at most.",
            )
        return flow

    def delivery_id(self, item: int | None = None) -> str:
        suffix = "" if item is None else f":{item}"
        return f"call:{self.parent.id}:{self.node_id}{suffix}"

    def earlier(self, flow: Flow) -> dict[str, FlowRun]:
        """This node's children from an earlier attempt, by delivery id (one
        query: a resumed for_each looks up every item at once)."""
        prefix = self.delivery_id()
        runs = FlowRun.objects.filter(
            flow=flow, called_by=self.parent, delivery_id__startswith=prefix
        )
        return {run.delivery_id: run for run in runs}

    def call(
        self, flow: Flow, input: Any, *, item: int | None = None, known=LOOK_UP
    ) -> FlowRun:
        """Run `flow` inline with `input` and return its finished run; an
        earlier attempt's finished run instead (`known`: the caller looked it
        up already, None for none; by default it is looked up here)."""
        check_input(flow, input)
        delivery_id = self.delivery_id(item)
        if known is LOOK_UP:
            known = FlowRun.objects.filter(
                flow=flow, delivery_id=delivery_id, called_by=self.parent
            ).first()
        if known is not None:
            known = self.outlast(known)
        if known is not None and self.finished(known):
            return known
        if known is not None:
            _interrupt_if_dead(known)
        else:
            self.check_room()
        deferred.store_now(self.parent)  # the child's row points at it
        child, repeat = run_once(
            flow,
            input,
            FlowRun.Trigger.CALL,
            delivery_id=delivery_id,
            request_meta=self.meta(),
            deadline=self.execution.deadline,
            depth=self.execution.depth,
            hops=self.execution.hops,
            called_by=self.parent,
        )
        if not repeat:
            return child
        self.check_own(child)
        if child is not None and child.status in FINISHED:
            return child
        raise NodeError(
            "child_running",
            "The called flow's run for this node is still running elsewhere.",
        )

    def outlast(self, child: FlowRun) -> FlowRun | None:
        """Wait for a child left `running` under a lease that has not expired
        (None: it is gone), until it ends or its lease expires.

        A resumed parent meets one when its earlier attempt's process died
        within a lease of inserting the child (the child's lease, set at its
        INSERT, outlives the parent's, renewed on the tick before), or when
        that process is alive but lost the parent's lease while slow. Either
        the child ends (the caller takes it as it is) or its lease expires
        (the caller runs it again in its row): never run twice, never left.
        Out of deadline first: a background parent continues later, a
        synchronous one fails `child_running`.
        """
        while child.status == FlowRun.Status.RUNNING and _lease_alive(child):
            if self.cancelled():
                raise NodeError("cancelled", "The run was cancelled.")
            if time.monotonic() + POLL_SECONDS >= self.execution.deadline:
                if self.parent.background:
                    raise ContinueLater(f"Child run {child.id} is still running.")
                raise NodeError(
                    "child_running",
                    "The called flow's run for this node is still running elsewhere.",
                )
            time.sleep(POLL_SECONDS)
            child = FlowRun.objects.filter(pk=child.pk).first()
            if child is None:
                return None
        return child

    def meta(self) -> dict:
        return {
            "call_depth": self.depth,
            "called_by_node": self.node_id,
            "call_root": self.root,
        }

    def check_room(self) -> None:
        """Past FLOW_CALL_MAX_CHILDREN runs started under the root, fail
        `too_many_calls`: depth alone lets a self-calling flow queue millions of
        runs (one indexed count; concurrent start-mode children may pass it
        by a few)."""
        limit = settings.FLOW_CALL_MAX_CHILDREN
        # A plain `=` on the key's text, which run_call_root_idx indexes: the
        # annotation's own lookup compared JSON_EXTRACT(root) on SQLite, which
        # raises "malformed JSON" for a bare UUID.
        started = FlowRun.objects.filter(
            Exact(KT("request_meta__call_root"), self.root),
            trigger=FlowRun.Trigger.CALL,
        ).count()
        if started >= limit:
            raise NodeError(
                "too_many_calls",
                f"One run may start {limit} called runs at most, at every depth "
                f"below it; run {self.root} has started {started}.",
            )

    def cancelled(self) -> bool:
        """Whether the parent run was cancelled (seen within a lease tick)."""
        return lease.is_cancelled(self.parent.id)

    def finished(self, child: FlowRun) -> bool:
        """Whether `child` is done for good: a background parent runs a child
        that its deadline cut short again (see `call`)."""
        if child.status == FlowRun.Status.TIMED_OUT:
            return not self.parent.background
        # A waiting child goes on by itself later; its caller fails child_waiting.
        return child.status in (*FINISHED, FlowRun.Status.WAITING)

    def failure(self, child: FlowRun, flow: Flow) -> NodeError:
        return failure_of(child, flow)

    def result(self, child: FlowRun, flow: Flow) -> Any:
        """A finished child's result; its failure as the node's (NodeError)."""
        if child.status != FlowRun.Status.SUCCEEDED:
            raise failure_of(child, flow)
        return result_of(child)

    def start(self, flow: Flow, input: Any) -> FlowRun:
        """Queue a background run of `flow` (once: a resumed parent gets the
        run it queued before)."""
        check_input(flow, input)
        self.check_room()
        deferred.store_now(self.parent)
        child, repeat = run_once(
            flow,
            input,
            FlowRun.Trigger.CALL,
            delivery_id=self.delivery_id(),
            background=True,
            request_meta=self.meta(),
            called_by=self.parent,
        )
        if repeat and child is None:
            raise NodeError("child_running", "The run is being queued.")
        if repeat:
            self.check_own(child)
        return child

    def check_own(self, run: FlowRun | None) -> None:
        """A run holding this node's child id that this parent did not start
        (stored before `call:` ids were refused from callers) is never read
        as the child: its result could be anyone's."""
        if run is not None and run.called_by_id != self.parent.id:
            raise NodeError(
                "delivery_taken",
                f"Another run ({run.id}) holds this call's delivery id; the "
                "node does not take its result as the called flow's.",
            )


def result_of(child: FlowRun) -> Any:
    """What a finished child gives its caller: its response node's body, else
    the output of the last node that ran (one query)."""
    if isinstance(child.response, dict) and "body" in child.response:
        return child.response["body"]
    # Not `results`' last key: PostgreSQL's jsonb does not keep key order.
    last = child.steps.filter(status="succeeded").order_by("-position")
    return last.values_list("output", flat=True).first()


def failure_of(child: FlowRun, flow: Flow) -> NodeError:
    """The caller's error for a child that did not succeed."""
    error = child.error or {}
    message = (
        f"Flow {flow.name!r} (run {child.id}) ended {child.status}: "
        f"{error.get('code')}: {error.get('message')}"
    )
    if child.status == FlowRun.Status.TIMED_OUT:
        return NodeTimeout("run_timeout", message)
    if child.status == FlowRun.Status.WAITING:
        return NodeError(
            "child_waiting",
            f"Flow {flow.name!r} (run {child.id}) is waiting at a wait node and "
            "will go on by itself; to start such a flow, use call_flow's mode start.",
        )
    return NodeError("child_failed", message)


def check_input(flow: Flow, input: Any) -> None:
    """`input` against the called flow's `input_schema` (when it has one)."""
    if not flow.input_schema:
        return
    try:
        jsonschema.validate(input, flow.input_schema)
    except jsonschema.ValidationError as error:
        where = "/".join(str(part) for part in error.absolute_path) or "the input"
        raise NodeError(
            "invalid_input",
            f"The input does not fit {flow.name!r}'s input schema at {where}: "
            f"{error.message}",
        ) from None
    except jsonschema.SchemaError:
        raise NodeError(
            "invalid_input", f"{flow.name!r} has an input schema that is not valid."
        ) from None


def _interrupt_if_dead(run: FlowRun) -> None:
    """A child left `running` by a process that died (its lease expired), or
    cut short by its background parent's deadline, is marked interrupted, so
    `run_flow` restarts it in the same row."""
    dead = Q(status=FlowRun.Status.RUNNING, lease_expires_at__lt=timezone.now())
    store.mark_interrupted(
        FlowRun.objects.filter(dead | Q(status=FlowRun.Status.TIMED_OUT), pk=run.pk)
    )


def _lease_alive(run: FlowRun) -> bool:
    return run.lease_expires_at is not None and run.lease_expires_at >= timezone.now()


def _uuid_or_none(value: Any):
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None


Execution.child_runs = ChildRuns
