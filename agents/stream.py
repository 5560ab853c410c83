"""A chat turn as Server-Sent Events (`Accept: text/event-stream` on the chat API).

Events, each `id: <n>`, `event: <name>`, `data: <JSON>`: `start {conversation_id,
message_id}`, `token {text}`, `tool_call {id, name, arguments}`, `tool_result
{id, name, arguments, message_id, run_id, status, result}`, `usage
{input_tokens, output_tokens}`, then `done` (the JSON the non-streamed API
answers) or `error {code, message, conversation_id}`; a `: ping` comment when
nothing went out for AGENT_STREAM_PING_SECONDS.

The turn runs on a thread of its own and hands its events over a queue, so the
response can send pings while the model thinks or a tool flow runs. The web
thread is held for the whole turn all the same (a sync generator under WSGI);
streaming changes what the caller sees, not how many turns a process serves.
When the caller goes away, the server closes the generator: the turn is told,
stops at the next token and stores the text so far as a `cancelled` reply.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable, Iterator

from django.conf import settings
from django.db import connections
from django.http import StreamingHttpResponse
from rest_framework.renderers import BaseRenderer
from rest_framework.utils.encoders import JSONEncoder

from accounts.workspaces.access import whose_work
from agents.chat import ChatCancelled, ChatFailed, start_turn
from agents.limits import ChatThrottled
from agents.pricing import BudgetExceeded
from core.http.errors import ApiError, Throttled
from core.redact import redacting
from flows.engine.admission import admitted

logger = logging.getLogger("weir.agents")

EVENT_STREAM = "text/event-stream"


class EventStreamRenderer(BaseRenderer):
    """Lets DRF accept `Accept: text/event-stream` on the chat action; the
    stream itself is a StreamingHttpResponse, and errors before it are JSON
    (`AgentViewSet.finalize_response`)."""

    media_type = EVENT_STREAM
    format = "event-stream"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data, cls=JSONEncoder).encode()


def wants_stream(request) -> bool:
    return EVENT_STREAM in request.headers.get("Accept", "")


def frame(event: str, data, event_id: int) -> bytes:
    body = json.dumps(data, cls=JSONEncoder, ensure_ascii=False)
    return f"id: {event_id}\nevent: {event}\ndata: {body}\n\n".encode()


def stream_chat(request, agent, content: str, conversation, done: Callable):
    """Admit, store the user's message and stream the turn. Refusals (503/429
    at capacity, 429 over a chat rate) raise before the stream starts, so they
    come as the usual JSON envelope."""
    slot = admitted(request, **whose_work(request.user))
    slot.__enter__()
    release = once(lambda: slot.__exit__(None, None, None))
    try:
        turn = start_turn(
            agent, request.user, content, conversation, can_approve=True, store=False
        )
        # The turn's thread starts its model call now; the user's message is
        # stored meanwhile, before the `start` event names it (the turn writes
        # nothing until then). A failed store cancels the turn: a 500 envelope.
        response = stream_turn(turn, release, done)
        turn.store_message()
    except ChatThrottled as throttled:
        release()
        raise Throttled(throttled.wait, throttled.message) from None
    except BudgetExceeded as refused:
        release()
        raise ApiError(refused.message, code="budget_exceeded", status=429) from None
    except BaseException:
        release()
        raise
    return response


def once(action: Callable[[], None]) -> Callable[[], None]:
    """`action`, run on the first call only (a slot is given back once)."""
    done = threading.Event()
    lock = threading.Lock()

    def run_once() -> None:
        with lock:
            if done.is_set():
                return
            done.set()
        action()

    return run_once


def stream_turn(
    turn, release: Callable[[], None], done: Callable, shown: Callable | None = None
) -> StreamingHttpResponse:
    """The response streaming `turn` (from `agents.chat.start_turn`), whose
    thread starts now: its model call is on its way while the response goes
    back through the middleware.

    `release` runs once when the stream ends, the caller leaves or the
    response is closed unread (the admission slot);
    `done(reply)` is the `done` event's data. `shown(event, data)`, when
    given, is what the caller may see of a turn's event: its data, or None to
    drop it (a public visitor sees no tool results); a failure's `error` event
    passes through it too, and must not be dropped.
    """
    release = once(release)
    events: queue.Queue = queue.Queue()

    def emit(name: str, data) -> None:
        data = data if shown is None else shown(name, data)
        if data is not None:
            events.put((name, data))

    turn.emit = emit
    worker = threading.Thread(
        target=_work, args=(turn, events, done, shown), name="chat-turn", daemon=True
    )
    body = _Body(_frames(turn, events, release), turn, release)
    response = StreamingHttpResponse(body, content_type=EVENT_STREAM)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
    worker.start()
    return response


class _Body:
    """The frames, closed with the response (Django calls `close`) even when
    the body was never read, where the generator's `finally` would not run:
    the turn stops at its next token and the slot is given back."""

    def __init__(self, frames: Iterator[bytes], turn, release: Callable[[], None]):
        self.frames = frames
        self.turn = turn
        self.release = release

    def __iter__(self) -> Iterator[bytes]:
        return self.frames

    def close(self) -> None:
        self.frames.close()
        self.turn.cancelled.set()
        self.release()


def _frames(turn, events, release) -> Iterator[bytes]:
    ping = settings.AGENT_STREAM_PING_SECONDS
    event_id = 1
    try:
        yield frame(
            "start",
            {
                "conversation_id": turn.conversation.pk,
                "message_id": turn.user_message.pk,
            },
            event_id,
        )
        while True:
            try:
                item = events.get(timeout=ping)
            except queue.Empty:
                yield b": ping\n\n"
                continue
            if item is None:
                return
            event_id += 1
            yield frame(*item, event_id)
    finally:
        # Normal end: a no-op for the finished turn. The caller gone
        # (GeneratorExit at a yield): the turn stops at its next token.
        turn.cancelled.set()
        release()


def _work(turn, events: queue.Queue, done: Callable, shown: Callable | None) -> None:
    with redacting(turn.redactor):  # a failure is logged without the key
        _work_redacted(turn, events, done, shown)


def _work_redacted(
    turn, events: queue.Queue, done: Callable, shown: Callable | None
) -> None:
    """Run the turn and queue its last event; a failure's error as `shown`
    lets the caller see it (a visitor never reads the provider's words)."""
    try:
        reply = turn.run()
        events.put(("approval_required" if reply.awaiting else "done", done(reply)))
    except ChatFailed as failure:
        error = {**failure.error.as_dict(), "conversation_id": failure.conversation.pk}
        events.put(("error", error if shown is None else shown("error", error)))
    except ChatCancelled:
        pass
    except Exception:
        logger.exception("A streamed chat turn failed")
        events.put(
            (
                "error",
                {
                    "code": "internal_error",
                    "message": "Something went wrong on our side. "
                    "The error has been logged.",
                    "conversation_id": turn.conversation.pk,
                },
            )
        )
    finally:
        events.put(None)
        connections.close_all()  # this thread's own connections
