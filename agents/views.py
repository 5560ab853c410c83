"""Server-rendered pages for agents: the list, and the chat with one agent."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from agents.api import AgentSerializer, MessageSerializer, messages_with_run_workspace
from agents.api_edit import AgentEditSerializer
from agents.api_visitors import visitor_conversations
from agents.chat import MAX_CONTENT_CHARS
from agents.models import KEY_KINDS, Agent, Conversation, may_edit
from flows.models import Credential, Flow
from knowledge.models import KnowledgeBase

# Offered in the model field's list; any other name the provider knows works.
MODEL_SUGGESTIONS = {
    "openai": ["gpt-4o-mini", "gpt-4o", "gpt-4.1-mini", "gpt-4.1"],
    "anthropic": ["claude-3-5-haiku-latest", "claude-sonnet-4-0", "claude-opus-4-0"],
    "ollama": ["llama3.2", "qwen2.5", "mistral"],
    "echo": ["demo"],
}


@login_required
def agent_list(request):
    return render(
        request,
        "agents/list.html",
        {"agents": Agent.objects.for_user(request.user).with_editable(request.user)},
    )


@login_required
def agent_new(request):
    return _agent_form(request, None)


@login_required
def agent_edit(request, agent_id):
    """The agent page for editors of its workspace; anyone else's agent is 404 here."""
    agent = get_object_or_404(
        Agent.objects.owned_by(request.user).prefetch_related(
            "tools", "approval_flows"
        ),
        pk=agent_id,
    )
    return _agent_form(request, agent)


def _agent_form(request, agent):
    """The form's choices (the user's key credentials, flows and knowledge bases)
    and the agent's
    settings reach the script as JSON; it saves through the API."""
    credentials = Credential.objects.for_user(request.user).filter(kind__in=KEY_KINDS)
    flows = Flow.objects.for_user(request.user).order_by("name")
    form_data = {
        "agent": AgentEditSerializer(agent, context={"request": request}).data
        if agent
        else None,
        "credentials": [
            {"id": str(c.pk), "name": c.name, "kind": c.kind}
            for c in credentials.order_by("name")
        ],
        "flows": [{"id": str(flow.pk), "name": flow.name} for flow in flows],
        "knowledge_bases": [
            {"id": str(base.pk), "name": base.name}
            for base in KnowledgeBase.objects.for_user(request.user).order_by("name")
        ],
        "suggestions": MODEL_SUGGESTIONS,
    }
    return render(request, "agents/form.html", {"agent": agent, "form_data": form_data})


@login_required
def agent_chat(request, agent_id):
    """The chat page; `?c=<conversation id>` opens one of the user's conversations.

    The messages reach the page's script as JSON (json_script); the script renders
    them and talks to the chat API from then on.
    """
    agent = get_object_or_404(
        Agent.objects.for_user(request.user).prefetch_related(
            "tools", "approval_flows"
        ),
        pk=agent_id,
    )
    conversations = Conversation.objects.for_user(request.user).filter(agent=agent)
    current = None
    if request.GET.get("c"):
        try:
            current = conversations.prefetch_related(messages_with_run_workspace()).get(
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
            "is_owner": may_edit(agent, request.user),
        },
    )


@login_required
def agent_visitors(request, agent_id):
    """Visitors' conversations with a published agent, for its editors;
    `?c=<conversation id>` shows one with its messages and tool calls."""
    agent = get_object_or_404(Agent.objects.owned_by(request.user), pk=agent_id)
    conversations = visitor_conversations(agent)
    current = None
    if request.GET.get("c"):
        try:
            current = conversations.prefetch_related(messages_with_run_workspace()).get(
                pk=request.GET["c"]
            )
        except (Conversation.DoesNotExist, ValidationError) as exc:
            raise Http404("No such conversation.") from exc
    return render(
        request,
        "agents/visitors.html",
        {
            "agent": agent,
            "conversations": conversations[:100],
            "current": current,
            "messages": current.messages.all() if current else [],
        },
    )
