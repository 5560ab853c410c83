"""What a chat turn ends with: its reply, or why it ended early (agents/chat.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.models import Conversation, Message
from agents.providers import ProviderError


class ChatFailed(Exception):
    """The provider failed; `error` says how, `conversation` is where it happened."""

    def __init__(self, conversation: Conversation, error: ProviderError):
        super().__init__(error.message)
        self.conversation = conversation
        self.error = error


class ChatCancelled(Exception):
    """The caller went away mid-turn; the partial reply is stored as `cancelled`."""


class AgentTooDeep(Exception):
    """An agent chain (agent → flow → agent → …) went past MAX_AGENT_DEPTH."""


@dataclass
class ChatReply:
    conversation: Conversation
    message: Message
    tool_calls: list[dict] = field(default_factory=list)
    usage: dict = field(default_factory=dict)
    # Calls held for the person chatting (agents/approval.py); the turn
    # ended without a final reply, `message` is the one asking for them.
    awaiting: list[dict] = field(default_factory=list)
    data: object = None  # the parsed reply, when the agent has an output_schema
