"""An agent's flows as tools: their function specs, and running one for the model.

Every call is an ordinary FlowRun with trigger `agent`. Whatever happens (a failed
run, an unknown tool, arguments that are not an object) the model gets a JSON
result to read, never an exception.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agents.providers import ToolCall, ToolSpec

if TYPE_CHECKING:
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
    """What one tool call produced: the text the model reads and the run, if any."""

    content: str
    result: dict
    run: FlowRun | None = None


class Toolbox:
    """The flows one agent may call, by the function names the model sees."""

    def __init__(self, flows: list[Flow]):
        self.flows: dict[str, Flow] = {}
        self.specs: list[ToolSpec] = []
        for flow in flows:
            name = base = function_name(flow.name)
            suffix = 2
            while name in self.flows:
                name = f"{base[: MAX_NAME_LENGTH - 4]}_{suffix}"
                suffix += 1
            self.flows[name] = flow
            self.specs.append(
                ToolSpec(
                    name=name,
                    title=flow.name,
                    description=flow.description or f"Runs the flow {flow.name!r}.",
                    parameters=input_parameters(flow),
                )
            )

    @classmethod
    def for_agent(cls, agent: Agent) -> Toolbox:
        """The agent's tools: only its owner's flows, even if others slipped in."""
        # Filtered in Python so a prefetched `tools` costs no query per agent.
        flows = [f for f in agent.tools.all() if f.owner_id == agent.owner_id]
        return cls(sorted(flows, key=lambda flow: (flow.created_at, str(flow.pk))))

    def call(self, call: ToolCall, *, meta: dict) -> ToolOutcome:
        """Run the flow behind `call.name` with `call.arguments` as its input."""
        from flows.engine import run_flow

        flow = self.flows.get(call.name)
        if flow is None:
            return _refusal("unknown_tool", f"There is no tool named {call.name!r}.")
        if not isinstance(call.arguments, dict):
            return _refusal(
                "invalid_arguments", "Tool arguments must be a JSON object."
            )
        try:
            run = run_flow(flow, call.arguments, "agent", request_meta=meta)
        except Exception:
            # run_flow reports node failures in the run; this is a bug elsewhere,
            # and the model still deserves an answer.
            logger.exception("Tool flow %s crashed", flow.pk)
            return _refusal("run_failed", "The tool's flow could not be run.")
        result = run.as_result()
        return ToolOutcome(content=_as_text(result), result=result, run=run)


def _refusal(code: str, message: str) -> ToolOutcome:
    result = {"success": False, "error": {"code": code, "message": message}}
    return ToolOutcome(content=_as_text(result), result=result)


def _as_text(result: dict) -> str:
    text = json.dumps(result, default=str)
    if len(text) > MAX_RESULT_CHARS:
        return text[:MAX_RESULT_CHARS] + " …(truncated)"
    return text
