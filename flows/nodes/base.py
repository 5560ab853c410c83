"""What every node kind declares: its type, its handles, its `data` checks, its run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from flows.models import Flow, FlowRun


@dataclass(frozen=True)
class FieldError:
    """One problem in a node's `data`; `field` is a dotted path such as `data.code`."""

    field: str
    message: str


class NodeError(Exception):
    """A node failed; the run stops with `error: {node_id, code, message}`."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class NodeContext:
    """What a running node sees. The engine builds one per node.

    `render(value)` fills `{{ expression }}` templates inside any JSON value with
    `input`, `prev` and `results`; `log(line)` appends to the step's logs.
    `deadline` is the `time.monotonic()` by which the whole run must end.
    """

    flow: Flow
    run: FlowRun
    node: dict
    input: Any
    prev: Any
    results: dict
    deadline: float
    render: Callable[[Any], Any]
    logs: list[str] = field(default_factory=list)
    handle: str | None = None

    def log(self, line: str) -> None:
        self.logs.append(line)


class NodeKind:
    """Base of the node kinds. Subclasses set the class attributes, check `data`, run.

    `output_handles` lists the source handles an edge may leave from; `(None,)`
    means one unnamed output. A node that picks a branch sets `ctx.handle` to
    the handle whose edges fire (the condition node sets "true" or "false").
    """

    type: str = ""
    label: str = ""
    description: str = ""
    is_trigger: bool = False
    output_handles: tuple[str | None, ...] = (None,)

    def validate_data(self, data: dict) -> list[FieldError]:
        """Problems in this node's `data`; an empty list when it is valid."""
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        """Do the node's work and return its output (any JSON value).

        Raise `NodeError(code, message)` to fail the node and stop the run.
        """
        raise NodeError("not_runnable", f"Node type {self.type!r} cannot run yet.")
