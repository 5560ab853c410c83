"""How a run executes (`Execution`): a flow's graph once, and what is stored of it.

Nodes run in topological order (ties keep the order of the flow's node list).
Only nodes a path of edges leads to from a trigger run; any other node is
`skipped` with the reason `unreachable` and cannot fail the run.
A node runs when every incoming edge has fired (with `wait: any`, when one
has); an edge fires when its source node succeeded and, for a branching node,
left through the handle it chose. A node that does not run is `skipped` and
fires no edge. The first failing node ends the run.

Persistence: a run without a delivery id is first written when it ends, the
whole run and its steps in one statement, unless it lasts past
`deferred.STORE_AFTER_SECONDS`, when it is inserted `running` (a run started
here is never waiting in a queue) and updated once with its final state
(flows/engine/deferred.py). A delivery's run is inserted at once: the INSERT
claims the delivery id. Step rows are buffered and written with the final
write (and every `step_log.STEP_FLUSH_SECONDS` during a long run), because a row per
node would cost more than the engine itself; a crash mid-run leaves a
`running` run for the supervisor to resume or mark `interrupted` once its
lease expires (or, in a run's first moments, nothing).

What is stored must be storable (core/storable.py): input and outputs are
checked, and a final write that still fails (a flow deleted mid-run, a value
refused) ends the run `failed`, never `running` (see `Execution.finish`).
"""

from __future__ import annotations

import logging
import time
from typing import Any

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection
from django.utils import timezone

from core.storable import storable_text
from flows.credentials.resolve import RunSecrets
from flows.engine import lease, waits
from flows.engine.attempts import RequeueForRetry, attempt_node, redacted_traceback
from flows.engine.budget import RunBudget, json_text
from flows.engine.final_write import FinalWrite
from flows.engine.logged import logged_as_node, logged_as_run
from flows.engine.plan import (
    PlannedNode,
    RunStopped,
    edges_to_fire,
    is_ready,
    plan,
    upstream_output,
)
from flows.engine.signals import run_ended
from flows.engine.step_log import StepLog
from flows.engine.stops import Stopped, cancelled_at
from flows.engine.variables import RunVariables
from flows.files import RunFiles
from flows.graph import ERROR_HANDLE
from flows.models import Flow, FlowRun, RunStep
from flows.nodes import NodeContext
from flows.nodes.errors import ContinueLater, Park, StopRun
from flows.nodes.webhook import request_values

logger = logging.getLogger("weir.engine")

PINNED_LOG = "Pinned output: the node did not run."
NOT_TESTED = {
    "code": "not_tested",
    "message": "Skipped: this test ran only one node and what leads to it.",
}


class Execution(FinalWrite, StepLog):
    """One run in progress: results so far, buffered steps, the deadline."""

    # What a node's `ctx.calls` is made from: flows.engine.calls.ChildRuns,
    # plugged in by that module (it imports this one).
    child_runs = None

    def __init__(
        self,
        flow: Flow,
        run: FlowRun,
        *,
        deadline: float | None = None,
        depth: int = 0,
        hops: int = 0,
        stored_steps: list[dict] = (),
        reused_steps: list[dict] = (),
        retry_state: dict | None = None,
        pins: dict | None = None,
        only: set[str] | None = None,
        files: RunFiles | None = None,
    ):
        self.flow = flow
        self.run = run
        # The run's id as text, made once: a uuid's str() costs ~1.5 µs, and
        # the lease, the log context, the step rows and each node's
        # idempotency key all need it.
        self.key = str(run.id)
        self.depth = depth
        self.hops = hops
        # The workspace's credentials, opened as nodes ask; every value opened
        # is redacted.
        self.secrets = RunSecrets(flow.workspace_id)
        self.redactor = self.secrets.redactor
        self.workspace_vars = RunVariables(flow.workspace_id)
        # The run's files (flows/files): a webhook's uploads come with it.
        self.files = files or RunFiles(flow.workspace_id)
        self.files.run = run
        # A background run stores each step as it completes, to be resumed.
        self.step_by_step = run.background
        self.retry_state = retry_state  # a node's attempts before a deferred retry
        self.pins = pins or {}  # test runs from the builder only (flows/graph/pins.py)
        self.only = only  # "Run this node": the node and what leads to it
        self.results: dict[str, Any] = {}
        self.budget = RunBudget()
        self.fired: set[int] = set()
        # RunStep rows: stored ones (a resumed run), then a retry's copies of
        # its earlier run's steps, written with the run's next steps.
        self.steps: list[dict] = [*stored_steps, *reused_steps]
        self.flushed = len(stored_steps)  # rows already in the database
        self.done = {row["node_id"]: row for row in self.steps}  # replayed
        self.stopped: Stopped | None = None  # a stop node ended the run
        self.last_flush = time.monotonic()
        # What templates see as `run`, and what woke the run if it waited.
        self.run_values = {
            "id": self.key,
            "resume_urls": waits.resume_urls(run.id, flow.nodes),
        }
        if run.trigger == FlowRun.Trigger.WEBHOOK and run.request_meta:
            self.run_values["request"] = request_values(run.request_meta)
        self.wait_state = run.wait_state or {}
        self.started = time.monotonic()
        self.deadline = self.started + settings.RUN_TIMEOUT_SECONDS
        if deadline is not None:
            # A run started by a node of another run ends with that run.
            self.deadline = min(self.deadline, deadline)

    @logged_as_run
    def execute(self) -> FlowRun:
        status, error = FlowRun.Status.SUCCEEDED, None
        lease.hold(self.key)
        try:
            for planned in plan(self.flow, self.run.trigger):
                if planned.node["id"] in self.done:
                    self.replay(planned)
                else:
                    self.step(planned)
        except RunStopped as stop:
            status, error = stop.status, stop.error
        except (RequeueForRetry, ContinueLater):
            raise  # the caller queues the run again (flows/engine/background.py)
        except Park as parked:
            # Stored `waiting`; woken by the supervisor or the resume URL
            # (flows/engine/waits.py). Not ended, so no error flow either.
            if not waits.park(self, parked):
                self.taken_over()
            self.files.claim_pending()
            return self.run
        except (OperationalError, InterfaceError):
            # The database went away mid-run (a restart): not the flow's fault.
            # The run stays `running`; once its lease expires the supervisor
            # resumes a background run after its last stored step, or marks a
            # synchronous one `interrupted`.
            logger.warning("Run %s lost the database mid-run", self.run.id)
            connection.close()
            self.leave_to_supervisor()
            return self.run
        except Exception as exception:  # logged redacted, as a node's failure is
            logger.error(
                "Run %s failed inside the engine\n%s",
                self.run.id,
                redacted_traceback(exception, self.redactor.text),
            )
            status = FlowRun.Status.FAILED
            error = {
                "node_id": None,
                "code": "internal_error",
                "message": "The engine failed; the error has been logged.",
            }
        finally:
            lease.release(self.key)
        if self.stopped is not None and status == FlowRun.Status.SUCCEEDED:
            status, error = self.stopped.ending()
        self.finish(status, error)
        self.files.claim_pending()  # stored now, unless the write failed
        run_ended.send(sender=FlowRun, run=self.run)
        return self.run

    def replay(self, planned: PlannedNode) -> None:
        """A node a previous attempt stored: take its output, fire its edges."""
        row = self.done[planned.node["id"]]
        self.stopped = self.stopped or Stopped.from_step(row)
        if row["status"] == "failed" and planned.node.get("error_output") is True:
            self.results[planned.node["id"]] = row["error"]
            self.fired.update(edges_to_fire(planned, ERROR_HANDLE))
        if row["status"] != RunStep.Status.SUCCEEDED:
            return  # skipped; a failed step would have ended that attempt
        self.results[planned.node["id"]] = row["output"]
        if planned.kind.sets_response:
            self.run.response = row["output"]
        self.fired.update(edges_to_fire(planned, row["handle"] or None))

    @logged_as_node
    def step(self, planned: PlannedNode) -> None:
        node = planned.node
        node_id = node["id"]
        if planned.skip_error:  # unreachable, or a trigger this run did not use
            error = planned.skip_error | {"node_id": node_id}
            self.record(node, RunStep.Status.SKIPPED, error=error)
            return
        if self.stopped is not None:
            error = self.stopped.skip_reason(node_id)
            self.record(node, RunStep.Status.SKIPPED, error=error)
            return
        if self.only is not None and node_id not in self.only:
            error = {**NOT_TESTED, "node_id": node_id}
            self.record(node, RunStep.Status.SKIPPED, error=error)
            return
        if not is_ready(planned, self.fired):
            self.record(node, RunStep.Status.SKIPPED)
            return
        if node_id in self.pins and not planned.kind.is_trigger:
            self.use_pin(planned)
            return
        if lease.is_cancelled(self.key):
            raise RunStopped(FlowRun.Status.CANCELLED, cancelled_at(node_id, "before"))
        if time.monotonic() >= self.deadline:
            raise RunStopped(
                FlowRun.Status.TIMED_OUT,
                {
                    "node_id": node_id,
                    "code": "run_timeout",
                    "message": "The run took longer than "
                    f"{settings.RUN_TIMEOUT_SECONDS:g} s.",
                },
            )
        data = node.get("data") or {}
        ctx = NodeContext(
            owner_id=self.flow.created_by_id,
            input=self.run.input,
            prev=self.prev(planned),
            results=self.results,
            deadline=self.deadline,
            depth=self.depth,
            hops=self.hops,
            label=f"{node.get('name') or node_id!r} ({node_id})",
            secrets=self.secrets,
            exposes_secrets=planned.exposes_secrets,
            idempotency_key=f"{self.key}:{node_id}",
            background=self.run.background,
            calls=self.child_runs(self, node_id) if self.child_runs else None,
            node_id=node_id,
            run_values=self.run_values,
            workspace_vars=self.workspace_vars if planned.reads_vars else None,
            resume=self.resumed_at(node_id),
            files=self.files,
        )
        started_at = timezone.now()
        clock = time.perf_counter()
        timing = {"started_at": started_at, "clock": clock}
        try:
            outcome = attempt_node(
                planned,
                data,
                ctx,
                run=self.run,
                deadline=self.deadline,
                prior=self.prior_attempts(node_id),
                defer=self.step_by_step,
                check=self.checked_output,
                redact=self.redactor.text,
                describe=lambda failure: {
                    **self.redactor.redact(failure.details),
                    "node_id": node_id,
                    "code": failure.code,
                    "message": storable_text(self.redactor.text(failure.message)),
                },
            )
        except StopRun as stop:  # the run ends here, on purpose; no edge fires
            output = self.checked_output(stop.output)  # redacted
            self.stopped = Stopped(node_id, stop.outcome, stop.code, output["message"])
            self.results[node_id] = output
            succeeded = RunStep.Status.SUCCEEDED
            self.record(node, succeeded, ctx=ctx, output=output, **timing)
            return
        if outcome.failure is not None:
            failed = RunStep.Status.FAILED
            timing["attempts"] = outcome.attempts
            self.record(node, failed, ctx=ctx, error=outcome.error, **timing)
            if outcome.cancelled:  # while it waited to retry, or the node saw it
                error = outcome.error if outcome.failure.code == "cancelled" else None
                raise RunStopped(
                    FlowRun.Status.CANCELLED, error or cancelled_at(node_id)
                )
            if node.get("error_output") is True and time.monotonic() < self.deadline:
                # The error flows out of the node's error handle; the run goes on.
                self.results[node_id] = outcome.error
                self.fired.update(edges_to_fire(planned, ERROR_HANDLE))
                return
            status = FlowRun.Status.FAILED
            if outcome.failure.timed_out:
                status = FlowRun.Status.TIMED_OUT
            raise RunStopped(status, outcome.error) from outcome.failure
        output = outcome.output
        self.results[node_id] = output
        if planned.kind.sets_response:  # only a node that succeeded answers
            self.run.response = output
        timing["attempts"] = outcome.attempts
        self.record(node, RunStep.Status.SUCCEEDED, ctx=ctx, output=output, **timing)
        self.fired.update(edges_to_fire(planned, ctx.handle))

    def use_pin(self, planned: PlannedNode) -> None:
        """The node's pinned output stands in for running it."""
        node_id = planned.node["id"]
        output = self.pins[node_id]
        self.results[node_id] = output
        succeeded = RunStep.Status.SUCCEEDED
        self.record(planned.node, succeeded, output=output, note=PINNED_LOG)
        self.fired.update(edges_to_fire(planned, None))

    def resumed_at(self, node_id: str) -> dict | None:
        """What woke the run if it waited at `node_id` (flows/engine/wake.py)."""
        if self.wait_state.get("node_id") != node_id:
            return None
        return self.wait_state.get("resumed")

    def prior_attempts(self, node_id: str) -> list[dict]:
        state = self.retry_state or {}
        return state.get("attempts", []) if state.get("node_id") == node_id else []

    def checked_output(self, output: Any) -> Any:
        """The output as stored: redacted, and checked within the run's budget.

        While the run has opened no credential, only the registered token
        shapes can need redacting, and they are looked for in the JSON text
        the budget measures (their prefix and characters read the same in any
        JSON text of the value), so the output is encoded once, not twice.
        """
        if not self.redactor:
            try:
                text = json_text(output)
            except (TypeError, ValueError, RecursionError):
                text = None  # not JSON: the checks below say why
            if text is not None and self.redactor.redact(text) is text:
                self.budget.check_output(output, text)
                return output
        output = self.redactor.redact(output)
        self.budget.check_output(output)
        return output

    def prev(self, planned: PlannedNode) -> Any:
        return upstream_output(planned, self.flow.edges, self.fired, self.results)
