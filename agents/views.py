"""Server-rendered pages for agents: the list, and the chat with one agent."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from agents.api import AgentSerializer, MessageSerializer, messages_with_run_owner
from agents.chat import MAX_CONTENT_CHARS
from agents.models import Agent, Conversation


@login_required
def agent_list(request):
    return render(
        request, "agents/list.html", {"agents": Agent.objects.for_user(request.user)}
    )


@login_required
def agent_chat(request, agent_id):
    """The chat page; `?c=<conversation id>` opens one of the user's conversations.

    The messages reach the page's script as JSON (json_script); the script renders
    them and talks to the chat API from then on.
    """
    agent = get_object_or_404(
        Agent.objects.for_user(request.user).prefetch_related("tools"), pk=agent_id
    )
    conversations = Conversation.objects.for_user(request.user).filter(agent=agent)
    current = None
    if request.GET.get("c"):
        try:
            current = conversations.prefetch_related(messages_with_run_owner()).get(
                pk=request.GET["c"]
            )
        except (Conversation.DoesNotExist, ValidationError) as exc:
            raise Http404("No such conversation.") from exc
    chat_data = {
        "agent": AgentSerializer(agent).data,
        "conversation_id": str(current.pk) if current else None,
        "messages": MessageSerializer(
            current.messages.all(), many=True, context={"request": request}
        ).data
        if current
        else [],
        "max_chars": MAX_CONTENT_CHARS,
    }
    return render(
        request,
        "agents/chat.html",
        {
            "agent": agent,
            "conversations": conversations[:50],
            "current": current,
            "chat_data": chat_data,
        },
    )
