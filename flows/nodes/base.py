"""What every node kind declares: its type, handles, form, defaults, checks and run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

# Defined in flows.nodes.errors, which templates.py can import without a cycle;
# node kinds keep importing them from here.
from flows.nodes.errors import NodeError as NodeError
from flows.nodes.errors import NodeTimeout as NodeTimeout
from flows.nodes.errors import sandbox_failure
from flows.nodes.templates import NOT_SIMPLE, UNDEFINED, lookup_path, render
from sandbox import SandboxError, evaluate

# A `kinds` entry standing for every credential kind that signs an HTTP
# request, plugin kinds included; flows/apps.py fills in how to list them
# (flows.credentials sits above the nodes and cannot be imported here).
HTTP_SIGNING = "@http_signing"
KIND_GROUPS: dict[str, Callable[[], tuple[str, ...]]] = {}


@dataclass(frozen=True)
class FieldError:
    """One problem in a node's `data`; `field` is a dotted path such as `data.code`."""

    field: str
    message: str


@dataclass(frozen=True)
class FormField:
    """One input of a kind's inspector form in the builder.

    `path` is where the value lives in the node ("data.<key>") and is also the
    `field` that validation errors name, so an error lands next to its input.
    `widget` is how the builder edits it: text, textarea, code, number,
    number-or-template, select (from `options`), choices (several of
    `options`, a list), lines (a list of texts, one per line), keyvalue, pairs
    (a list of `{name, value}` where a name may repeat), json (any JSON value,
    or plain text), or agent (a select filled from GET /api/agents).
    """

    path: str
    label: str
    widget: str = "text"
    help: str = ""
    options: tuple[str, ...] = ()
    mono: bool = False
    min: int | None = None
    kinds: tuple[str, ...] = ()

    def as_json(self) -> dict:
        described = {"path": self.path, "label": self.label, "widget": self.widget}
        if self.help:
            described["help"] = self.help
        if self.options:
            described["options"] = list(self.options)
        if self.mono:
            described["mono"] = True
        if self.min is not None:
            described["min"] = self.min
        if self.kinds:
            described["kinds"] = [
                name
                for entry in self.kinds
                for name in (KIND_GROUPS[entry]() if entry in KIND_GROUPS else (entry,))
            ]
        return described


@dataclass
class NodeContext:
    """What a running node sees. The engine builds one per node.

    Only facts and outputs, never the `Flow` or `FlowRun`: a node returns its
    output and the engine decides what that does to the run. `owner_id` is the
    flow's creator (None once they are deleted; the agent node's conversation
    is theirs), `workspace_id` the flow's workspace (whose agents and
    credentials a node may use); `depth` counts the agents waiting
    above this run (0 unless an agent's tool call started it; see agents.nodes);
    `hops` counts the webhook runs that led to this one (see core.net.outbound).

    `render(value)` fills `{{ expression }}` templates inside any JSON value with
    `input`, `prev` and `results` (see `flows.nodes.templates`); `evaluate(expr)`
    gives one JavaScript expression's value; `log(line)` appends to the step's
    logs. `deadline` is the `time.monotonic()` by which the whole run must end.
    A node that picks a branch sets `handle` ("true" or "false"); one that
    leaves through several at once joins them with commas (a switch in mode
    all).

    `secrets` is the run's `flows.credentials.resolve.RunSecrets` (None outside
    a run): `credential(id)` for a node's `credential_id`. Templates and code
    see a `secrets` variable only when `exposes_secrets` is set, which the
    engine does only for a node whose own data mentions `secrets`.
    `idempotency_key` is `<run id>:<node id>`, the same on every attempt at the
    node (a resumed run may repeat one), for nodes that call out.
    """

    owner_id: Any
    input: Any
    prev: Any
    results: dict
    deadline: float
    depth: int = 0
    hops: int = 0
    label: str = ""
    secrets: Any = None
    exposes_secrets: bool = False
    idempotency_key: str = ""
    node_id: str = ""
    run_values: dict | None = None
    # The run's flows.engine.variables.RunVariables, for a node naming `vars`.
    workspace_vars: Any = None
    resume: dict | None = None
    logs: list[str] = field(default_factory=list)
    handle: str | None = None
    logs_truncated: bool = False
    # Runs of other flows (call_flow, for_each): flows.engine.calls.ChildRuns,
    # None where no run can start one (a node tested on its own).
    calls: Any = None
    background: bool = False  # the run is a worker's: it may ContinueLater
    # The run's files (flows.files.RunFiles; None outside a run): `store`,
    # `open`, `open_bytes`, `find`, `files_in` (docs/engine.md, "Files").
    files: Any = None

    @property
    def variables(self) -> dict:
        variables = {"input": self.input, "prev": self.prev, "results": self.results}
        if self.run_values is not None:
            variables["run"] = self.run_values
        if self.workspace_vars is not None:
            variables["vars"] = self.workspace_vars.values
        if self.exposes_secrets and self.secrets is not None:
            variables["secrets"] = self.secrets.template_values(self.label)
        return variables

    @property
    def workspace_id(self):
        """The workspace of the flow being run (None outside a run)."""
        return getattr(self.secrets, "workspace_id", None)

    def credential(self, credential_id) -> tuple[Any, dict]:
        """The run owner's credential and its decrypted fields (NodeError if gone)."""
        if self.secrets is None:
            raise NodeError("credential_missing", "Credentials need a run.")
        return self.secrets.credential(credential_id, self.label)

    def send_signed(self, credential_id, url: str, headers: dict, send) -> Any:
        """`send(url, headers)` with the credential applied; an oauth2 one is
        renewed and the request sent once more after a 401 (RunSecrets)."""
        if self.secrets is None:
            raise NodeError("credential_missing", "Credentials need a run.")
        return self.secrets.send_signed(credential_id, self.label, url, headers, send)

    def credential_of_kind(
        self, credential_id, kind: str, what: str, label: str
    ) -> tuple[Any, dict]:
        """The node's credential, which must be of `kind`: "Pick {what}
        ({label})." when none is chosen, "{name} is not {label}." when it is
        another kind."""
        if not credential_id:
            raise NodeError("credential_missing", f"Pick {what} ({label}).")
        credential, secrets = self.credential(credential_id)
        if credential.kind != kind:
            raise NodeError("credential_kind", f"{credential.name} is not {label}.")
        return credential, secrets

    def render(self, value: Any) -> Any:
        """`value` with its `{{ }}` templates filled in; raises NodeError on failure."""
        return render(value, self.variables, deadline=self.deadline)

    def evaluate(self, expression: str) -> Any:
        """The value of one JavaScript expression (undefined comes back as None)."""
        value = lookup_path(expression.strip(), self.variables)
        if value is NOT_SIMPLE:
            try:
                [value] = evaluate([expression], self.variables, deadline=self.deadline)
            except SandboxError as error:
                raise sandbox_failure(error, "expression_error") from error
        return None if value is UNDEFINED else value

    def evaluate_all(self, expressions: list[str]) -> list:
        """The value of each JavaScript expression, in one sandbox round trip."""
        try:
            values = evaluate(expressions, self.variables, deadline=self.deadline)
        except SandboxError as error:
            raise sandbox_failure(error, "expression_error") from error
        return [None if value is UNDEFINED else value for value in values]

    def redact(self, value: Any) -> Any:
        """`value` with every credential value this run opened replaced by
        `[redacted:NAME]`: for what a node stores outside the run itself."""
        return self.secrets.redactor.redact(value) if self.secrets else value

    def log(self, line: str) -> None:
        self.logs.append(line)


class NodeKind:
    """Base of the node kinds. Subclasses set the class attributes, check `data`, run.

    `output_handles` lists the source handles an edge may leave from; `(None,)`
    means one unnamed output. A node that picks a branch sets `ctx.handle` to
    the handle whose edges fire (the condition node sets "true" or "false").
    A kind with `sets_response` returns `{status, headers, body}`, and the
    engine makes that output the run's webhook response once the node succeeds.

    `form_fields` and `default_data` describe the kind to the builder: the
    inspector's inputs and the `data` a new node starts with (the builder copies
    it; nothing here mutates it). A kind without form fields is edited as one
    JSON object.
    """

    type: str = ""
    label: str = ""
    description: str = ""
    is_trigger: bool = False
    output_handles: tuple[str | None, ...] = (None,)
    # Where `handles(data)` finds more handles, for the builder: "cases" (switch).
    handles_from: str = ""
    sets_response: bool = False
    # The inspector offers "Import cURL", filling method, url, query, headers,
    # body and body_type from a pasted command (static/js/builder/curl_import.js).
    imports_curl: bool = False
    form_fields: tuple[FormField, ...] = ()
    default_data: dict = {}  # read only: the builder gets a copy, as JSON

    def handles(self, data: dict) -> tuple[str | None, ...]:
        """The handles of a node with this `data`: `output_handles`, unless
        they depend on the data (a switch has one per case)."""
        return self.output_handles

    def validate_data(self, data: dict) -> list[FieldError]:
        """Problems in this node's `data`; an empty list when it is valid."""
        return []

    def run(self, data: dict, ctx: NodeContext) -> Any:
        """Do the node's work and return its output (any JSON value).

        Raise `NodeError(code, message)` to fail the node and stop the run,
        `NodeTimeout` when it ran out of time.
        """
        raise NodeError("not_runnable", f"Node type {self.type!r} cannot run.")
