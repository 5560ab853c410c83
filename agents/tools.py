"""An agent's flows as tools: their function specs, and running one for the model.

Every call is an ordinary FlowRun with trigger `agent`. Whatever happens (a failed
run, an unknown tool, arguments that are not an object) the model gets a JSON
result to read, never an exception.

The result is a summary, not the run: `{success, status, output, error}` with
the flow's final output only. The person chatting is shown exactly what the
model read, and may be someone other than the flow's owner, so the outputs of
the flow's inner nodes (and the run's id) never leave through a tool result.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.db.models import Exists, OuterRef

from agents import knowledge_tool
from agents.mcp_tools import call_remote, remote_tools
from agents.providers import ToolCall, ToolSpec
from core.redact import Redactor, redacting

if TYPE_CHECKING:
    from accounts.audit.actor import Actor
    from agents.models import Agent
    from flows.models import Flow, FlowRun

logger = logging.getLogger("weir.agents")

# OpenAI and Anthropic both accept ^[a-zA-Z0-9_-]{1,64}$ as a function name.
MAX_NAME_LENGTH = 64
# A flow's output can be large; the model gets at most this much of it.
MAX_RESULT_CHARS = 16_000
EMPTY_OBJECT_SCHEMA = {"type": "object", "properties": {}}


def function_name(flow_name: str) -> str:
    """`Say hello!` becomes `say_hello`: a name every provider accepts."""
    name = re.sub(r"[^a-zA-Z0-9_-]+", "_", flow_name).strip("_-").lower()
    return name[:MAX_NAME_LENGTH] or "flow"


def input_parameters(flow: Flow) -> dict:
    """The flow's input schema as function parameters (always an object schema)."""
    schema = flow.input_schema
    if not isinstance(schema, dict) or not schema:
        return dict(EMPTY_OBJECT_SCHEMA)
    if schema.get("type") != "object":
        return {**EMPTY_OBJECT_SCHEMA, **schema, "type": "object"}
    return schema


@dataclass
class ToolOutcome:
    """What one tool call produced: the text the model reads and the run, if any.

    `result` is that same text as JSON, or the text itself when it was cut at
    MAX_RESULT_CHARS (and so is no longer JSON).
    """

    content: str
    result: dict | str
    run: FlowRun | None = None
    # A call with no run (an MCP tool) says how it ended; else the run does.
    status: str | None = None


class Toolbox:
    """The flows one agent may call, by the function names the model sees, and
    (for a turn) its MCP servers' tools (`agents.mcp_tools`)."""

    def __init__(
        self,
        flows: list[Flow],
        asking=frozenset(),
        remote: list | None = None,
        knowledge: list | None = None,
    ):
        self.flows: dict[str, Flow] = {}
        # The agent's knowledge bases, searched by `search_knowledge`.
        self.knowledge = knowledge or []
        self.remote: dict = {}
        # Function names whose calls wait for a person's approval (agents/approval.py).
        self.asking: set[str] = set()
        self.specs: list[ToolSpec] = []
        for flow in flows:
            name = base = function_name(flow.name)
            suffix = 2
            while name in self.flows:
                name = f"{base[: MAX_NAME_LENGTH - 4]}_{suffix}"
                suffix += 1
            self.flows[name] = flow
            if flow.pk in asking:
                self.asking.add(name)
            self.specs.append(
                ToolSpec(
                    name=name,
                    title=flow.name,
                    description=flow.description or f"Runs the flow {flow.name!r}.",
                    parameters=input_parameters(flow),
                )
            )
        if self.knowledge:
            self.flows.pop(knowledge_tool.NAME, None)  # the built-in name wins
            self.specs = [s for s in self.specs if s.name != knowledge_tool.NAME]
            self.specs.append(knowledge_tool.spec(self.knowledge))
        for spec, target in remote or []:
            if spec.name in self.flows or spec.name in self.remote:
                continue  # a flow's name wins; a server's repeat is dropped
            self.remote[spec.name] = target
            self.specs.append(spec)
            if target.asks_first:
                self.asking.add(spec.name)

    @classmethod
    def for_agent(cls, agent: Agent) -> Toolbox:
        """The agent's flow tools: `Agent.usable_tools`, its workspace's flows only;
        those in `approval_flows` ask first (one query more)."""
        asking = {flow.pk for flow in agent.approval_flows.all()}
        return cls(
            agent.usable_tools(), asking, knowledge=knowledge_tool.bases_of(agent)
        )

    @classmethod
    def for_turn(cls, agent: Agent, deadline: float | None) -> Toolbox:
        """The flow tools and the MCP servers' tools, listed once for the turn.

        The flows are `Agent.usable_tools` (its workspace's only, in the same
        order) with whether each asks first, in one query (none when the agent
        was read with `has_tools` False); an agent with no MCP servers asks none."""
        from agents.models import Agent

        if agent.workspace_id is None or getattr(agent, "has_tools", True) is False:
            flows = []
        else:
            asks = Agent.approval_flows.through.objects.filter(
                agent_id=agent.pk, flow_id=OuterRef("pk")
            )
            flows = list(
                agent.tools.filter(workspace_id=agent.workspace_id)
                .annotate(asks_first=Exists(asks))
                .order_by("created_at", "pk")
            )
        asking = {flow.pk for flow in flows if flow.asks_first}
        remote = remote_tools(agent, deadline) if agent.mcp_servers else None
        return cls(flows, asking, remote, knowledge_tool.bases_of(agent))

    def asks_first(self, name: str) -> bool:
        return name in self.asking

    def call(
        self,
        call: ToolCall,
        *,
        depth: int,
        deadline: float | None = None,
        hops: int = 0,
        trigger: str = "agent",
        started_by: Actor | None = None,
    ) -> ToolOutcome:
        """Run the flow behind `call.name` with `call.arguments` as its input.

        `depth` is the calling agent's depth plus one: an agent node inside the
        flow passes it on, so agents calling agents stop at MAX_AGENT_DEPTH.
        `deadline` (a `time.monotonic()` value) ends the run early, as
        `timed_out`, when the caller has less time left than a run normally gets.
        `hops` is the webhook chain the asking run is part of (see
        core.net.outbound): a tool flow calling a webhook carries it on.
        `trigger` is the run's: `agent`, or `mcp` for /api/mcp.
        `started_by` is who called over /api/mcp: audited as `run.started`.
        """
        if self.knowledge and call.name == knowledge_tool.NAME:
            if not isinstance(call.arguments, dict):
                return refusal(
                    "invalid_arguments", "Tool arguments must be a JSON object."
                )
            result = knowledge_tool.call(self.knowledge, call.arguments)
            outcome = _outcome(result)
            outcome.status = "succeeded" if result["success"] else "failed"
            return outcome
        flow = self.flows.get(call.name)
        target = self.remote.get(call.name)
        if flow is None and target is None:
            return refusal("unknown_tool", f"There is no tool named {call.name!r}.")
        if not isinstance(call.arguments, dict):
            return refusal("invalid_arguments", "Tool arguments must be a JSON object.")
        if target is not None:
            result = call_remote(target, call.arguments, deadline)
            outcome = _outcome(result)
            outcome.status = "succeeded" if result["success"] else "failed"
            return outcome
        from flows.engine import run_flow

        # A crash is logged redacted with what the run opened (core.redact).
        with redacting(Redactor()):
            try:
                run = run_flow(
                    flow,
                    call.arguments,
                    trigger,
                    deadline=deadline,
                    depth=depth,
                    hops=hops,
                    started_by=started_by,
                )
            except Exception:
                # run_flow reports node failures in the run; this is a bug
                # elsewhere, and the model still deserves an answer.
                logger.exception("Tool flow %s crashed", flow.pk)
                return refusal("run_failed", "The tool's flow could not be run.")
        return _outcome(run_summary(run), run)


def run_summary(run: FlowRun) -> dict:
    """What a tool run tells the model: how it ended and the flow's final output.

    The final output is the response node's body when one answered, else the
    output of the last node that ran; a run that did not succeed has none (its
    `error` says why). Inner nodes' outputs stay in the run, for its owner.
    """
    output = None
    if run.success:
        if run.response is not None:
            output = run.response.get("body")
        elif run.results:
            output = list(run.results.values())[-1]
    return {
        "success": run.success,
        "status": run.status,
        "output": output,
        "error": run.error,
    }


def refusal(code: str, message: str) -> ToolOutcome:
    """A tool call answered with an error and no run."""
    return _outcome({"success": False, "error": {"code": code, "message": message}})


def _outcome(result: dict, run: FlowRun | None = None) -> ToolOutcome:
    text = json.dumps(result, default=str)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + " …(truncated)"
        return ToolOutcome(content=text, result=text, run=run)
    return ToolOutcome(content=text, result=result, run=run)
