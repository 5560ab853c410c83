"""The for_each node: runs a body flow once per element of a list.

Each element is a child run of the body flow (flows/engine/calls.py), run
inline one after the other with delivery id `call:<run>:<node>:<index>`. The
output always carries the counts, and a loop that cannot finish fails with
its progress in the message: never a silent early stop.

A background run that nears its deadline raises `ContinueLater`: the worker
queues the run again at once and the node starts over on a fresh deadline,
taking every finished item's run as it is (one query finds them), so no
finished item runs twice, even after a worker was killed mid-loop.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings

from flows.nodes.base import FieldError, FormField, NodeContext, NodeKind
from flows.nodes.call_flow import calls_of, flow_id_problems
from flows.nodes.checks import integer_between, text
from flows.nodes.errors import ContinueLater, NodeError, NodeTimeout
from flows.nodes.templates import render

ON_ERROR = ("stop", "continue")
COLLECT = ("outputs", "summary")
MAX_PAUSE_MS = 10_000
# An item is not started unless this much of the deadline is left, nor less
# than 1.5 times the items' mean time so far.
MIN_SECONDS_LEFT = 0.05


class ForEachNode(NodeKind):
    type = "for_each"
    label = "For each"
    description = "Runs a flow once per element of a list; gives counts and results."
    form_fields = (
        FormField(
            "data.items",
            "Items",
            mono=True,
            help="A template giving an array: {{ input.orders }}.",
        ),
        FormField(
            "data.flow_id",
            "Flow",
            widget="flow",
            help="The flow to run for each element, at its webhook node.",
        ),
        FormField(
            "data.input",
            "Input per item",
            widget="json",
            help="A template with item and index: {{ item }}, "
            '{"order": "{{ item.id }}", "n": "{{ index }}"}.',
        ),
        FormField(
            "data.on_error",
            "When an item fails",
            widget="select",
            options=ON_ERROR,
            help="stop: the node fails at that item; continue: count it and go on.",
        ),
        FormField("data.max_items", "Most items", widget="number", min=1),
        FormField(
            "data.pause_ms",
            "Pause between items (ms)",
            widget="number",
            min=0,
            help="For rate-limited APIs.",
        ),
        FormField(
            "data.collect",
            "Collect",
            widget="select",
            options=COLLECT,
            help="summary leaves the results out: counts and errors only.",
        ),
    )
    default_data = {
        "items": "{{ input.items }}",
        "flow_id": "",
        "input": "{{ item }}",
        "on_error": "stop",
        "max_items": 100,
        "pause_ms": 0,
        "collect": "outputs",
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        problems = text(data, "items") + flow_id_problems(data)
        for key, allowed in (("on_error", ON_ERROR), ("collect", COLLECT)):
            if data.get(key, allowed[0]) not in allowed:
                problems.append(
                    FieldError(f"data.{key}", f"{key} is one of {', '.join(allowed)}.")
                )
        cap = settings.FOR_EACH_MAX_ITEMS
        problems += integer_between(data, "max_items", 1, cap, required=False)
        problems += integer_between(data, "pause_ms", 0, MAX_PAUSE_MS, required=False)
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        calls = calls_of(ctx)
        flow = calls.flow(data["flow_id"])
        items = ctx.render(data["items"])
        if not isinstance(items, list):
            raise NodeError("invalid_items", "Items must be an array.")
        most = min(data.get("max_items", 100), settings.FOR_EACH_MAX_ITEMS)
        if len(items) > most:
            raise NodeError(
                "too_many_items",
                f"{len(items)} items; this node takes at most {most} (max_items).",
            )
        loop = Loop(data, ctx, calls, flow, len(items))
        for index, item in enumerate(items):
            loop.item(index, item)
        ctx.log(
            f"{loop.count} items: {loop.succeeded} succeeded, {loop.failed} failed."
        )
        return loop.output()


class Loop:
    """One pass over the items; finished items from earlier passes are reused."""

    def __init__(self, data, ctx: NodeContext, calls, flow, count: int):
        self.data, self.ctx, self.calls, self.flow = data, ctx, calls, flow
        self.count = count
        self.earlier = calls.earlier(flow)  # one query
        self.results: list = []
        self.errors: list[dict] = []
        self.ran: list[float] = []  # seconds each item took in this pass

    @property
    def succeeded(self) -> int:
        return len(self.results) - len(self.errors)

    @property
    def failed(self) -> int:
        return len(self.errors)

    def item(self, index: int, item: Any) -> None:
        known = self.earlier.get(self.calls.delivery_id(index))
        if known is None or not self.calls.finished(known):
            self.make_room(index)
        variables = {**self.ctx.variables, "item": item, "index": index}
        input = render(
            self.data.get("input", "{{ item }}"), variables, deadline=self.ctx.deadline
        )
        started = time.monotonic()
        child = self.calls.call(self.flow, input, item=index, known=known)
        if child is not known:
            self.ran.append(time.monotonic() - started)
        if child.status == "succeeded":
            self.results.append(self.calls.result(child, self.flow))
            return
        if child.status == "timed_out":
            self.out_of_time(index)  # the deadline ran out inside the item
        error = self.calls.failure(child, self.flow)
        self.results.append(None)
        self.errors.append(
            {
                "index": index,
                "run_id": str(child.id),
                "code": error.code,
                "message": error.message,
            }
        )
        if self.data.get("on_error", "stop") == "stop":
            raise NodeError(
                "child_failed",
                f"Item {index} failed ({self.progress()}): {error.message}",
            )

    def make_room(self, index: int) -> None:
        """Before a new item: stop if the run was cancelled, pause, and make
        sure there is time for the item."""
        if self.calls.cancelled():
            raise NodeError(
                "cancelled",
                f"The run was cancelled at item {index} ({self.progress()}).",
            )
        pause = self.data.get("pause_ms", 0) / 1000
        if pause and index:
            time.sleep(max(0.0, min(pause, self.ctx.deadline - time.monotonic())))
        needed = MIN_SECONDS_LEFT
        if self.ran:
            needed = max(needed, 1.5 * sum(self.ran) / len(self.ran))
        if self.ctx.deadline - time.monotonic() < needed:
            self.out_of_time(index)

    def out_of_time(self, index: int):
        if self.ctx.background:
            raise ContinueLater(f"{self.progress()}; continuing at item {index}")
        raise NodeTimeout(
            "run_timeout",
            f"The run's time ran out at item {index} ({self.progress()}).",
        )

    def progress(self) -> str:
        return f"{len(self.results)} of {self.count} items done"

    def output(self) -> dict:
        output = {
            "count": self.count,
            "succeeded": self.succeeded,
            "failed": self.failed,
            "errors": self.errors,
        }
        if self.data.get("collect", "outputs") == "outputs":
            output["results"] = self.results
        return output
