"""Tools that ask first: the call waits for the person chatting to approve it.

An agent's owner marks some tool flows "requires approval" (`approval_flows`).
When the model calls one, the turn stores the call's tool message as
`pending_approval` (empty content, nothing run) and ends once its other calls
are done: the chat API answers 202 `awaiting_approval` (or the stream's
`approval_required` event) and the thread is free. The decision
(`agents/resume.py`) fills that same message in, with the run's result or a
`denied` refusal the model reads, and resumes the turn from the stored history.

Inside a flow run (the agent node) nobody can approve: the call is refused with
`approval_required` as its tool result, so the model can say so in its reply
and the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agents.models import Message
from agents.tools import refusal

if TYPE_CHECKING:
    from agents.providers import ToolCall


def ask_first(turn, call: ToolCall) -> None:
    """Hold `call` for a decision, or refuse it when no person is there."""
    if not turn.can_approve:
        turn._record_tool(
            call,
            refusal(
                "approval_required",
                "This tool runs only once a person approves the call, and "
                "nobody can inside a flow run; it was not run.",
            ),
        )
        return
    message = turn._store(
        role=Message.Role.TOOL,
        content="",
        tool_call_id=call.id,
        tool_name=call.name,
        approval=Message.Approval.PENDING,
    )
    turn.awaiting.append(held(call.as_dict(), message))


def held(call: dict, message: Message) -> dict:
    """A call waiting for a decision as the API shows it."""
    return {**call, "message_id": str(message.pk), "status": message.approval}


def has_pending(conversation) -> bool:
    """Whether a call of `conversation` waits for a decision (one query): until
    it is decided the conversation takes no new message, since the model must
    see every call's result before the next user turn."""
    return conversation.messages.filter(approval=Message.Approval.PENDING).exists()
