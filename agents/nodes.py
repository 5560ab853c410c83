"""The agent node: sends a templated message to an agent, outputs its reply.

Flows know nothing of agents: `AgentsConfig.ready()` registers this kind with
`flows.nodes.register`. The agent is one of the flow's workspace (or a shared
one); each run starts a new conversation that belongs to the flow's creator,
so they find it on the agent's chat page. A provider
failure fails the node (`upstream_error`), a provider timeout times the run out
(`timeout`), a reply that does not match the agent's output_schema fails it
(`invalid_output`); one that does is also the output's `data`. The run's
deadline bounds the whole exchange, every model call and every tool run; the
run's `depth` (agents already waiting above it) bounds agents calling agents
through flows. The message counts against the creator's and the agent's chat
rates (agents/limits.py); over one the node fails (`throttled`). Tools that
ask for approval are refused inside a run (agents/approval.py).
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from agents.chat import AgentTooDeep, ChatFailed, send_message
from agents.limits import ChatThrottled
from agents.models import KEY_KINDS, Agent
from agents.pricing import BudgetExceeded
from flows.nodes import (
    FieldError,
    FormField,
    NodeContext,
    NodeError,
    NodeKind,
    NodeTimeout,
)
from flows.nodes.checks import text

MAX_MESSAGE_CHARS = 32_000


class AgentNode(NodeKind):
    type = "agent"
    label = "Agent"
    description = "Sends a message to an agent and outputs its reply."
    form_fields = (
        FormField("data.agent_id", "Agent", widget="agent"),
        FormField(
            "data.message",
            "Message",
            widget="textarea",
            help="Templates allowed: {{ input.question }}",
        ),
        FormField(
            "data.credential_id",
            "API key credential",
            widget="credential",
            kinds=("bearer", "header"),
            help="Optional: the provider key for this node; "
            "empty uses the agent's own.",
        ),
    )
    # No agent chosen yet: the user picks one before the flow can be saved.
    default_data = {
        "agent_id": "",
        "message": "{{ input.message }}",
        "credential_id": None,
    }

    def validate_data(self, data: dict) -> list[FieldError]:
        """`agent_id` names an active agent (one query); `message` is a template."""
        problems = text(data, "message", max_length=MAX_MESSAGE_CHARS)
        credential_id = data.get("credential_id")
        if credential_id is not None and not isinstance(credential_id, str):
            problems.append(
                FieldError("data.credential_id", "Must be a credential's id or null.")
            )
        agent_id = _uuid(data.get("agent_id"))
        if agent_id is None or not Agent.objects.active().filter(pk=agent_id).exists():
            problems.append(
                FieldError("data.agent_id", "Agent id must name an active agent.")
            )
        return problems

    def run(self, data: dict, ctx: NodeContext) -> Any:
        agent_id = _uuid(data.get("agent_id"))
        # Only an agent of the flow's workspace, or a shared one: another
        # workspace's agent (and the key its credential holds) reads as missing,
        # whatever other workspaces the flow's creator is in.
        agent = agent_id and (
            Agent.objects.active()
            .filter(Q(workspace_id=ctx.workspace_id) | Q(shared=True), pk=agent_id)
            .first()
        )
        if not agent:
            raise NodeError(
                "agent_not_found",
                "The agent is gone, inactive or not of this flow's workspace.",
            )
        owner = get_user_model().objects.filter(pk=ctx.owner_id).first()
        if owner is None:
            raise NodeError(
                "agent_not_found",
                "An agent node's conversation belongs to the flow's creator; "
                "this flow has none (they were deleted, or a workspace token "
                "made it).",
            )
        message = ctx.render(data["message"])
        if not isinstance(message, str):
            message = json.dumps(message)
        if not message.strip() or len(message) > MAX_MESSAGE_CHARS:
            raise NodeError(
                "invalid_message",
                f"The message must be 1 to {MAX_MESSAGE_CHARS} characters "
                "once its templates are filled in.",
            )
        # The conversation is stored outside the run, so no credential value
        # reaches it, nor the model: secrets in the message arrive redacted.
        message = ctx.redact(message)
        api_key = _key_from(ctx, data.get("credential_id"))
        try:
            reply = send_message(
                agent,
                owner,
                message,
                depth=ctx.depth,
                deadline=ctx.deadline,
                hops=ctx.hops,
                api_key=api_key,
            )
        except ChatFailed as failure:
            error = NodeTimeout if failure.error.code == "timeout" else NodeError
            raise error(failure.error.code, failure.error.message) from failure
        except AgentTooDeep as failure:
            raise NodeError("agent_too_deep", str(failure)) from failure
        except ChatThrottled as failure:
            raise NodeError("throttled", failure.message) from failure
        except BudgetExceeded as failure:
            raise NodeError("budget_exceeded", failure.message) from failure
        ctx.log(f"Conversation {reply.conversation.pk} with {agent.name}")
        output = {
            "reply": reply.message.content,
            "conversation_id": str(reply.conversation.pk),
            "usage": reply.usage,
        }
        if agent.output_schema:
            output["data"] = reply.data  # the reply parsed, matching the schema
        return output


def _key_from(ctx: NodeContext, credential_id) -> str | None:
    """The provider key from the node's credential; None uses the agent's own."""
    if not credential_id:
        return None
    credential, secrets = ctx.credential(credential_id)
    if credential.kind not in KEY_KINDS:
        raise NodeError(
            "credential_kind",
            f"Node {ctx.label}: an agent's API key comes from a bearer or header "
            f"credential, not {credential.kind}.",
        )
    return secrets.get("token") or secrets.get("value")


def _uuid(value) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        return None
