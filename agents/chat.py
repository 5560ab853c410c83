"""Chat with an agent: store the user's turn, call the model, run tools, store replies.

`send_message` is the one entry point, used by the chat API and the flows'
`agent` node alike; `start_turn` stores the message and hands back the
`agents.turn.Turn` (the tool loop) for the streaming API to run.

A `deadline` (the agent node passes its run's) bounds the whole turn: every
model call waits at most the time left (and never more than
AGENT_TIMEOUT_SECONDS), and every tool flow runs with the time left.

Every turn is stored as it happens. When the provider fails (or the reply does
not match the agent's output_schema) the user's message stays, a failed
assistant turn records the error, and `ChatFailed` carries the conversation;
failed turns are left out of the history sent next time.
"""

from __future__ import annotations

from collections.abc import Callable

from agents.limits import count_message, count_visitor_message
from agents.models import Agent, Conversation, Message
from agents.pricing import check_day_budget
from agents.replies import AgentTooDeep, ChatCancelled, ChatFailed, ChatReply
from agents.turn import Turn
from core.storable import storable_text

MAX_CONTENT_CHARS = 32_000
# Agents may reach agents through flows (agent node inside a tool flow); this
# many levels deep the chain is refused instead of recursing without end.
MAX_AGENT_DEPTH = 3
TITLE_CHARS = 80
__all__ = ["AgentTooDeep", "ChatCancelled", "ChatFailed", "ChatReply", "send_message"]


def send_message(
    agent: Agent,
    user,
    content: str,
    conversation: Conversation | None = None,
    *,
    depth: int = 0,
    deadline: float | None = None,
    hops: int = 0,
    api_key: str | None = None,
    can_approve: bool = False,
) -> ChatReply:
    """Send `content` from `user` to `agent` and return the agent's final reply.

    `start_turn(...).run()` is the same in two steps (the streamed chat API).

    Starts a conversation when none is given. `depth` counts agents already
    waiting further up the chain (0 for a person chatting). Raises ChatFailed
    when the provider fails or the deadline passes (code `timeout`), and
    AgentTooDeep past MAX_AGENT_DEPTH, `agents.limits.ChatThrottled` (nothing
    stored) over the user's or the agent's message rate. `deadline` is a
    `time.monotonic()` value by which the turn must end; None leaves each model
    call AGENT_TIMEOUT_SECONDS and each tool run RUN_TIMEOUT_SECONDS. `hops`
    (an agent node passes its run's) goes on to the tool runs, so a loop of
    webhooks through an agent still ends at WEBHOOK_MAX_HOPS.
    `api_key` (an agent node's credential) replaces the agent's own provider key.
    `can_approve`: a person is there to approve tools that ask first (the chat
    API); otherwise such calls are refused (agents/approval.py).
    """
    turn = start_turn(
        agent,
        user,
        content,
        conversation,
        depth=depth,
        deadline=deadline,
        hops=hops,
        api_key=api_key,
        can_approve=can_approve,
    )
    return turn.run()


def start_turn(
    agent: Agent,
    user,
    content: str,
    conversation: Conversation | None = None,
    *,
    depth: int = 0,
    deadline: float | None = None,
    hops: int = 0,
    api_key: str | None = None,
    emit: Callable[[str, dict], None] | None = None,
    can_approve: bool = False,
    store: bool = True,
    visitor: str = "",
    visitor_address: str = "",
) -> Turn:
    """Count the message, store it (starting a conversation if need be) and
    return the turn, not yet run. Raises as `send_message` does before any
    model call. `emit(event, data)` hears the turn as it happens.
    `agents.pricing.BudgetExceeded` when the agent's day is spent (nothing
    stored, nothing counted). `store=False` leaves the message to the
    caller's `turn.store_message()` (the streamed chat stores it while the
    turn's first model call is on its way). `visitor` (a published agent's
    visitor, agents/public/; `user` is then anonymous) counts the message
    against the agent's visitor rates (and `visitor_address`, its client's
    address, against the per-address one) and owns a new conversation."""
    if depth >= MAX_AGENT_DEPTH:
        raise AgentTooDeep(
            f"Agents calling agents through flows may nest {MAX_AGENT_DEPTH} deep."
        )
    check_day_budget(agent)
    if visitor:
        count_visitor_message(agent, visitor, visitor_address)
    else:
        count_message(agent, user)
    content = storable_text(content)
    new_conversation = conversation is None
    if new_conversation:
        conversation = Conversation(
            agent=agent,
            user=None if visitor else user,
            visitor=visitor,
            title=_title(content),
        )
    user_message = Message(
        conversation=conversation, role=Message.Role.USER, content=content
    )
    # A new conversation's history is this message: no query for it.
    history = [] if new_conversation else conversation.history()
    history.append(user_message.as_history_entry())
    turn = Turn(
        agent,
        conversation,
        user,
        depth=depth,
        deadline=deadline,
        hops=hops,
        api_key=api_key,
        emit=emit,
        user_message=user_message,
        can_approve=can_approve,
        history=history,
    )
    turn.defer_store(new_conversation)
    if store:
        turn.store_message()
    return turn


def _title(content: str) -> str:
    line = " ".join(content.split())
    return line if len(line) <= TITLE_CHARS else line[: TITLE_CHARS - 1] + "…"
