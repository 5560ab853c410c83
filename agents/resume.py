"""A person's decision on a held tool call, and the turn it resumes.

`decide(...)` claims the call (one conditional UPDATE, so of two decisions
racing exactly one wins and the other is `AlreadyDecided`) and returns the turn,
not yet run, like `agents.chat.start_turn`: the chat API runs it in the request
or streams it. Running it first applies the decision: an approval runs the tool
(with the edited arguments, which also replace the call's arguments in the
stored assistant message, so the model's history says what really ran), a
denial stores a `denied` refusal with the person's reason. Once no call of that
model answer waits any more, the loop asks the model again, from the stored
history.
"""

from __future__ import annotations

from agents.approval import held
from agents.models import Conversation, Message
from agents.providers import ToolCall
from agents.tools import refusal
from agents.turn import Turn
from core.storable import storable_text, storable_value


class CallNotFound(Exception):
    """No call of that id waits, or waited, for a decision in the conversation."""


class AlreadyDecided(Exception):
    """The call was approved or denied before."""


def decide(
    conversation: Conversation,
    call_id: str,
    *,
    approve: bool,
    arguments: dict | None = None,
    reason: str = "",
) -> Turn:
    """Claim the held call `call_id` and return the turn that resumes with it."""
    message = (
        conversation.messages.filter(role=Message.Role.TOOL, tool_call_id=call_id)
        .exclude(approval=Message.Approval.NONE)
        .last()
    )
    if message is None:
        raise CallNotFound(call_id)
    decision = Message.Approval.APPROVED if approve else Message.Approval.DENIED
    claimed = Message.objects.filter(
        pk=message.pk, approval=Message.Approval.PENDING
    ).update(approval=decision)
    if not claimed:
        message.refresh_from_db(fields=["approval"])  # the decision that won
        raise AlreadyDecided(message.approval)
    message.approval = decision
    turn = Turn(
        conversation.agent,
        conversation,
        conversation.user,
        depth=0,
        deadline=None,
        can_approve=True,
    )
    turn.user_message = message  # the stream's `start` names the decided call
    turn.calls_used = _calls_since_user_turn(conversation)
    turn.before = lambda: _apply(turn, message, arguments, reason)
    return turn


def _apply(turn: Turn, message: Message, arguments, reason: str) -> None:
    """Run or refuse the call, fill its tool message in, and hold the turn
    again if other calls of the same answer still wait."""
    asking = (
        turn.conversation.messages.filter(
            role=Message.Role.ASSISTANT, created_at__lte=message.created_at
        )
        .exclude(tool_calls=[])
        .last()
    )
    entry = next(c for c in asking.tool_calls if c["id"] == message.tool_call_id)
    if arguments is not None and message.approval == Message.Approval.APPROVED:
        entry["arguments"] = storable_value(arguments)
        asking.save(update_fields=["tool_calls"])
    call = ToolCall(entry["id"], entry["name"], entry["arguments"])
    if message.approval == Message.Approval.APPROVED:
        outcome = turn.toolbox.call(call, depth=1)
    else:
        outcome = refusal(
            "denied",
            "The person chatting denied this call" + (f": {reason}" if reason else "."),
        )
    message.content = storable_text(outcome.content)
    message.run = outcome.run
    message.save(update_fields=["content", "run"])
    turn.report_tool(call, message, outcome)
    turn.history = turn.conversation.history()
    turn.asking = asking
    turn.awaiting = [
        held(next(c for c in asking.tool_calls if c["id"] == m.tool_call_id), m)
        for m in turn.conversation.messages.filter(
            role=Message.Role.TOOL,
            approval=Message.Approval.PENDING,
            created_at__gt=asking.created_at,
        )
    ]


def _calls_since_user_turn(conversation: Conversation) -> int:
    """Tool calls already made for the latest user message: they count against
    AGENT_MAX_TOOL_STEPS as if the turn had never paused."""
    last_user = conversation.messages.filter(role=Message.Role.USER).last()
    tools = conversation.messages.filter(role=Message.Role.TOOL)
    if last_user is not None:
        tools = tools.filter(created_at__gt=last_user.created_at)
    return tools.count()
