"""A visitor's chat turn, streamed or answered whole, and what a visitor sees.

It is the signed-in chat (agents/chat.py, agents/stream.py) with the visitor
in place of the user: counted against the agent's visitor rates, admitted
under the agent's workspace, its day budget checked, and no one to approve a
tool that asks first (such calls are refused, as inside a flow run). A visitor
sees the replies' text and the names of the tools used, never a tool's
arguments, results, runs or the turn's cost: those stay for the agent's
editors (agents/api_visitors.py).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.http import JsonResponse

from accounts.workspaces.access import account_of
from agents.api_replies import ReplyMessageSerializer, chat_error
from agents.chat import ChatFailed, start_turn
from agents.limits import ChatThrottled
from agents.models import Message
from agents.pricing import BudgetExceeded
from agents.stream import once, stream_turn
from core.http.client_address import limit_address
from core.http.errors import ApiError, Throttled
from flows.engine.admission import admitted


def visitor_message(message: Message) -> dict:
    return ReplyMessageSerializer(message).data


def visitor_reply(reply) -> dict:
    """The `done` event's data, or the JSON answer: the reply and tool names."""
    return {
        "conversation_id": str(reply.conversation.pk),
        "message": visitor_message(reply.message),
        "tools_used": [call["name"] for call in reply.tool_calls],
    }


# What a visitor reads when a turn fails, by the error's code. The provider's
# own words can name its address, the key's last characters or the account,
# and the budget's message the agent's spend: those stay for its editors.
VISITOR_FAILURES = {
    "timeout": "The assistant took too long to answer; please try again.",
    "budget_exceeded": "The assistant cannot answer any more today; please "
    "come back tomorrow.",
}
UNAVAILABLE = "The assistant cannot answer right now; please try again later."


def failure_message(code: str) -> str:
    return VISITOR_FAILURES.get(code, UNAVAILABLE)


def visitor_error(error) -> ApiError:
    """The API error of a failed turn, in the visitor's words."""
    api_error = chat_error(error)
    return ApiError(
        failure_message(api_error.error_code),
        code=api_error.error_code,
        status=api_error.status_code,
    )


def shown(event: str, data):
    """What a visitor sees of a turn's event: tokens, which tool runs, and
    a failure's code in their words."""
    if event == "token":
        return data
    if event == "tool_call":
        return {"name": data["name"]}
    if event == "error":
        return {**data, "message": failure_message(data["code"])}
    return None


def visitor_turn(request, agent, visitor: str, content: str, conversation, stream):
    """Admit, count and store the visitor's message and answer the turn:
    streamed (`stream`) or whole. Refusals raise before anything is stored,
    as the error envelope."""
    slot = admitted(
        request,
        workspace_id=agent.workspace_id,
        account_id=account_of(agent.workspace_id),
    )
    slot.__enter__()
    release = once(lambda: slot.__exit__(None, None, None))
    try:
        turn = start_turn(
            agent,
            AnonymousUser(),
            content,
            conversation,
            visitor=visitor,
            visitor_address=limit_address(request),
            store=False,
        )
        if stream:
            response = stream_turn(turn, release, visitor_reply, shown)
            turn.store_message()
            return response
        turn.store_message()
        try:
            return JsonResponse(visitor_reply(turn.run()))
        except ChatFailed as failure:
            raise visitor_error(failure.error) from failure
        finally:
            release()
    except ChatThrottled as throttled:
        release()
        raise Throttled(throttled.wait, throttled.message) from None
    except BudgetExceeded:
        release()
        message = failure_message("budget_exceeded")
        raise ApiError(message, code="budget_exceeded", status=429) from None
    except BaseException:
        release()
        raise
