"""Chat with an agent: store the user's turn, call the model, run tools, store replies.

`send_message` is the one entry point, used by the chat API and the flows'
`agent` node alike. The tool loop lets the model call the agent's flows in at
most AGENT_MAX_TOOL_STEPS model calls; the call after that still describes the
tools (the history mentions them) but forbids calls, so the model has to answer
in words.

Every turn is stored as it happens. When the provider fails, the user's message
stays, a failed assistant turn records the error, and `ChatFailed` carries the
conversation so the caller can report it; failed turns are left out of the
history sent next time, so the conversation remains usable.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.conf import settings

from agents.models import Agent, Conversation, Message
from agents.providers import ChatRequest, ProviderError, provider_for
from agents.tools import Toolbox

MAX_CONTENT_CHARS = 32_000
# Agents may reach agents through flows (agent node inside a tool flow); this
# many levels deep the chain is refused instead of recursing without end.
MAX_AGENT_DEPTH = 3
TITLE_CHARS = 80


class ChatFailed(Exception):
    """The provider failed; `error` says how, `conversation` is where it happened."""

    def __init__(self, conversation: Conversation, error: ProviderError):
        super().__init__(error.message)
        self.conversation = conversation
        self.error = error


class AgentTooDeep(Exception):
    """An agent chain (agent → flow → agent → …) went past MAX_AGENT_DEPTH."""


@dataclass
class ChatReply:
    conversation: Conversation
    message: Message
    tool_calls: list[dict] = field(default_factory=list)
    usage: dict = field(default_factory=dict)


def send_message(
    agent: Agent,
    user,
    content: str,
    conversation: Conversation | None = None,
    *,
    depth: int = 0,
    timeout: float | None = None,
) -> ChatReply:
    """Send `content` from `user` to `agent` and return the agent's final reply.

    Starts a conversation when none is given. `depth` counts agents already
    waiting further up the chain (0 for a person chatting). Raises ChatFailed
    when the provider fails and AgentTooDeep past MAX_AGENT_DEPTH. `timeout`
    bounds each model call (default AGENT_TIMEOUT_SECONDS).
    """
    if depth >= MAX_AGENT_DEPTH:
        raise AgentTooDeep(
            f"Agents calling agents through flows may nest {MAX_AGENT_DEPTH} deep."
        )
    if conversation is None:
        conversation = Conversation.objects.create(
            agent=agent, user=user, title=_title(content)
        )
    Message.objects.create(
        conversation=conversation, role=Message.Role.USER, content=content
    )
    turn = _Turn(agent, conversation, depth, timeout or settings.AGENT_TIMEOUT_SECONDS)
    try:
        return turn.run()
    finally:
        conversation.touch()


class _Turn:
    """One user message's worth of model calls and tool runs."""

    def __init__(
        self, agent: Agent, conversation: Conversation, depth: int, timeout: float
    ):
        self.agent = agent
        self.timeout = timeout
        self.conversation = conversation
        self.depth = depth
        self.history = conversation.history()
        self.toolbox = Toolbox.for_agent(agent)
        self.tool_calls: list[dict] = []
        self.usage = {"input_tokens": 0, "output_tokens": 0}

    def run(self) -> ChatReply:
        max_steps, step = settings.AGENT_MAX_TOOL_STEPS, 0
        while True:
            may_call = step < max_steps and bool(self.toolbox.specs)
            result = self._ask(may_call)
            if not (may_call and result.tool_calls):
                message = self._store(
                    role=Message.Role.ASSISTANT,
                    content=result.content,
                    usage=result.usage,
                )
                return ChatReply(
                    self.conversation, message, self.tool_calls, self.usage
                )
            self._store(
                role=Message.Role.ASSISTANT,
                content=result.content,
                tool_calls=[call.as_dict() for call in result.tool_calls],
                usage=result.usage,
            )
            for call in result.tool_calls:
                self._run_tool(call)
            step += 1

    def _ask(self, may_call: bool):
        request = ChatRequest(
            model=self.agent.model_name,
            system=self.agent.system_prompt,
            messages=self.history,
            tools=self.toolbox.specs,
            allow_tool_calls=may_call,
            temperature=self.agent.temperature,
            max_tokens=self.agent.max_tokens,
            timeout=self.timeout,
        )
        try:
            result = provider_for(self.agent.model).complete(request)
        except ProviderError as error:
            Message.objects.create(
                conversation=self.conversation,
                role=Message.Role.ASSISTANT,
                error=error.as_dict(),
            )
            raise ChatFailed(self.conversation, error) from error
        for key in self.usage:
            self.usage[key] += int(result.usage.get(key) or 0)
        return result

    def _run_tool(self, call) -> None:
        outcome = self.toolbox.call(
            call,
            meta={
                "agent_id": str(self.agent.pk),
                "conversation_id": str(self.conversation.pk),
                "agent_depth": self.depth + 1,
            },
        )
        message = self._store(
            role=Message.Role.TOOL,
            content=outcome.content,
            tool_call_id=call.id,
            tool_name=call.name,
            run=outcome.run,
        )
        self.tool_calls.append(
            {
                **call.as_dict(),
                "message_id": str(message.pk),
                "run_id": str(outcome.run.pk) if outcome.run else None,
                "status": outcome.run.status if outcome.run else "refused",
                "result": outcome.result,
            }
        )

    def _store(self, **fields) -> Message:
        message = Message.objects.create(conversation=self.conversation, **fields)
        self.history.append(message.as_history_entry())
        return message


def _title(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
