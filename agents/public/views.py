"""The public routes of published agents, under `/c/` (never `/api/`, and no
sign-in): the hosted chat page, the widget script, and the visitor's API
(a session token, chat, and the visitor's own conversation).

An agent that is not published, inactive or unknown is 404 on every route.
The visitor's API sends CORS headers to the agent's allowed origins only and
refuses other pages (agents/public/origins.py); it takes no cookie, so it is
exempt from CSRF: the token travels in a header no other page can set.
"""

from __future__ import annotations

import json

from django.core.exceptions import RequestDataTooBig, ValidationError
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET

from agents.chat import MAX_CONTENT_CHARS
from agents.models import Agent, Conversation
from agents.public.chat import visitor_message, visitor_turn
from agents.public.origins import allow, cross_origin, frame_ancestors
from agents.public.session import new_token, visitor_of
from agents.stream import wants_stream
from core.http.errors import (
    MethodNotAllowed,
    NotFound,
    PayloadTooLarge,
    ValidationFailed,
)

WIDGET_MAX_AGE = 3600


def published(slug: str) -> Agent:
    agent = Agent.objects.active().filter(published=True, public_slug=slug).first()
    if agent is None:
        raise NotFound("No published agent has this address.")
    return agent


@require_GET
@never_cache  # it carries a new visitor's token: no cache may hand it to others
def chat_page(request, slug):
    """The hosted chat: framed by the agent's allowed origins only."""
    try:
        agent = published(slug)
    except NotFound as exc:
        raise Http404("No published agent has this address.") from exc
    page_data = {
        "slug": agent.public_slug,
        "name": agent.name,
        "token": new_token(agent),
        "max_chars": MAX_CONTENT_CHARS,
    }
    response = render(
        request, "agents/public_chat.html", {"agent": agent, "page_data": page_data}
    )
    return frame_ancestors(response, agent)


@require_GET
def widget_script(request):
    """`<script src="…/c/widget.js" data-agent="SLUG">`: the same for every
    agent, so a stable address browsers may cache."""
    response = HttpResponse(
        render_to_string("agents/widget.js"), content_type="text/javascript"
    )
    response["Cache-Control"] = f"public, max-age={WIDGET_MAX_AGE}"
    return response


def preflight_or(methods: tuple[str, ...]):
    """Answer CORS preflights for an allowed origin; refuse other methods."""

    def decorate(view):
        @csrf_exempt
        def wrapped(request, slug, **kwargs):
            agent = published(slug)
            origin = cross_origin(request, agent)
            if request.method == "OPTIONS":
                return allow(HttpResponse(status=204), origin)
            if request.method not in methods:
                raise MethodNotAllowed([*methods, "OPTIONS"])
            return allow(view(request, agent, **kwargs), origin)

        wrapped.__name__ = view.__name__
        wrapped.__doc__ = view.__doc__
        return wrapped

    return decorate


@preflight_or(("POST",))
@never_cache
def session(request, agent):
    """A new visitor's token, and the agent's name (the widget asks first)."""
    return JsonResponse(
        {"token": new_token(agent), "agent": {"name": agent.name}}, status=201
    )


@preflight_or(("POST",))
def chat(request, agent):
    """`{content, conversation_id?}` → the reply (JSON) or its events
    (`Accept: text/event-stream`), as the signed-in chat API streams them."""
    visitor = visitor_of(request, agent)
    content, conversation_id = _chat_input(request)
    conversation = None
    if conversation_id:
        conversation = _own_conversation(agent, visitor, conversation_id)
    return visitor_turn(
        request, agent, visitor, content, conversation, wants_stream(request)
    )


@preflight_or(("GET",))
def conversation(request, agent, conversation_id):
    """The visitor's own conversation: its user and assistant messages."""
    visitor = visitor_of(request, agent)
    found = _own_conversation(agent, visitor, conversation_id)
    messages = found.messages.filter(
        role__in=["user", "assistant"], error__isnull=True
    ).exclude(content="")
    return JsonResponse(
        {
            "id": str(found.pk),
            "messages": [visitor_message(message) for message in messages],
        }
    )


def _own_conversation(agent, visitor: str, conversation_id) -> Conversation:
    """One of this visitor's conversations with this agent; any other is 404."""
    try:
        return Conversation.objects.get(
            pk=conversation_id, agent=agent, visitor=visitor
        )
    except (Conversation.DoesNotExist, ValidationError) as exc:
        raise NotFound("No such conversation.") from exc


def _chat_input(request) -> tuple[str, str | None]:
    try:
        body = json.loads(request.body or b"{}")
    except RequestDataTooBig as exc:
        raise PayloadTooLarge() from exc
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValidationFailed("The body must be JSON.") from exc
    if not isinstance(body, dict):
        raise ValidationFailed("The body must be a JSON object.")
    content = body.get("content")
    if not isinstance(content, str) or not content.strip():
        message = "Write a message."
        raise ValidationFailed(message, details={"content": [message]})
    if len(content) > MAX_CONTENT_CHARS:
        message = f"A message is at most {MAX_CONTENT_CHARS} characters."
        raise ValidationFailed(message, details={"content": [message]})
    conversation_id = body.get("conversation_id")
    if conversation_id is not None and not isinstance(conversation_id, str):
        message = "conversation_id is a string."
        raise ValidationFailed(message, details={"conversation_id": [message]})
    return content, conversation_id
