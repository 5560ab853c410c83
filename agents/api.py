"""The agent API: `/api/agents`, chat, and the caller's conversations (docs/api.md)."""

from __future__ import annotations

import uuid

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import serializers, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import PermissionDenied
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from accounts import rights
from accounts.audit.actor import Actor
from accounts.workspaces.access import person, role_subquery, whose_work
from accounts.workspaces.permissions import require, require_role
from accounts.workspaces.roles import AGENTS_CHAT, AGENTS_EDIT
from agents import audit
from agents.api_edit import AgentEditSerializer, tool_listing
from agents.api_extras import AgentExtrasMixin
from agents.api_replies import (
    AwaitingSerializer,
    ChatReplySerializer,
    MessageSerializer,
    chat_error,
    messages_with_run_workspace,
    reply_body,
    reply_response,
)
from agents.api_visitors import VisitorConversationsMixin
from agents.approval import has_pending
from agents.chat import MAX_CONTENT_CHARS, ChatFailed, send_message
from agents.limits import ChatThrottled
from agents.models import Agent, Conversation, may_edit
from agents.pricing import BudgetExceeded
from agents.stream import EventStreamRenderer, stream_chat, wants_stream
from core.http.conditional import etag, parse_if_match
from core.http.errors import (
    Conflict,
    PreconditionFailed,
    Throttled,
)
from core.http.pagination import PagePagination
from flows.engine.admission import admitted


class AgentSerializer(serializers.ModelSerializer):
    """An agent as anyone who may chat with it sees it; an editor of its
    workspace gets all its settings (`AgentEditSerializer`), given the request
    in the context."""

    tools = serializers.SerializerMethodField()

    class Meta:
        model = Agent
        fields = ["id", "name", "model", "description", "tools"]
        read_only_fields = fields

    def get_tools(self, agent) -> list[dict]:
        return tool_listing(agent)

    def to_representation(self, agent):
        request = self.context.get("request")
        if request is not None and may_edit(agent, request.user):
            return AgentEditSerializer(agent, context=self.context).data
        return super().to_representation(agent)


class ConversationSerializer(serializers.ModelSerializer):
    agent_id = serializers.UUIDField(read_only=True)

    class Meta:
        model = Conversation
        fields = ["id", "agent_id", "title", "created_at", "updated_at"]
        read_only_fields = fields


class ConversationDetailSerializer(ConversationSerializer):
    messages = MessageSerializer(many=True, read_only=True)

    class Meta(ConversationSerializer.Meta):
        fields = [*ConversationSerializer.Meta.fields, "messages"]
        read_only_fields = fields


class ChatInputSerializer(serializers.Serializer):
    content = serializers.CharField(max_length=MAX_CONTENT_CHARS, trim_whitespace=False)
    conversation_id = serializers.CharField(required=False, allow_null=True)

    def validate_content(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("This field may not be blank.")
        return value


def etagged(response: Response) -> Response:
    response["ETag"] = etag(response.data["version"])
    return response


@extend_schema_view(
    create=extend_schema(request=AgentEditSerializer, responses=AgentEditSerializer),
    partial_update=extend_schema(
        request=AgentEditSerializer,
        responses=AgentEditSerializer,
        parameters=[
            OpenApiParameter(
                "If-Match",
                str,
                OpenApiParameter.HEADER,
                description='The version you edited, e.g. "3"; 412 when it is stale.',
            )
        ],
    ),
    destroy=extend_schema(
        responses={
            200: inline_serializer(
                "AgentDeleted", {"success": serializers.BooleanField()}
            )
        }
    ),
)
class AgentViewSet(AgentExtrasMixin, VisitorConversationsMixin, viewsets.ModelViewSet):
    """The caller's own agents and those shared with everyone; all may chat,
    editors of its workspace edit. Anyone else's private agent answers 404."""

    serializer_class = AgentSerializer
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]
    rights = {
        "list": rights.FLOWS_VIEW,
        "retrieve": rights.FLOWS_VIEW,
        "usage": rights.FLOWS_VIEW,
        "create": rights.AGENTS_EDIT,
        "partial_update": rights.AGENTS_EDIT,
        "destroy": rights.AGENTS_EDIT,
        "test_connection": rights.AGENTS_EDIT,
        "chat": rights.AGENTS_CHAT,
        "conversations": rights.AGENTS_CHAT,
        "visitor_conversations": rights.AGENTS_EDIT,
        "visitor_conversation": rights.AGENTS_EDIT,
    }

    def get_queryset(self):
        agents = Agent.objects.for_user(self.request.user)
        if getattr(self, "swagger_fake_view", False):
            return agents  # the schema's anonymous request: no role to read
        if self.action in ("list", "retrieve"):
            return agents.with_editable(self.request.user).prefetch_related(
                "tools", "approval_flows", "knowledge_bases"
            )
        if self.action == "chat":
            # The caller's role (read live on every request) and whether the
            # agent has tool flows come with the agent: statements fewer
            # before the first token.
            tools = Agent.tools.through.objects.filter(agent_id=OuterRef("pk"))
            bases = Agent.knowledge_bases.through.objects.filter(
                agent_id=OuterRef("pk")
            )
            return agents.annotate(
                caller_role=role_subquery(self.request.user),
                has_tools=Exists(tools),
                has_knowledge=Exists(bases),
            )
        return agents

    def get_serializer_class(self):
        if self.action in ("create", "partial_update"):
            return AgentEditSerializer
        return AgentSerializer

    def _own(self) -> Agent:
        """The agent in the URL, if the caller owns it: 403 for a shared agent
        of someone else (they can see it), 404 for one they cannot see."""
        agent = self.get_object()
        if agent.workspace_id is None:
            raise PermissionDenied(
                "Only editors of the agent's workspace may change it."
            )
        require(self.request.user, agent.workspace_id, AGENTS_EDIT)
        return agent

    def perform_create(self, serializer):
        """The serializer chose the workspace (the one named, else an API
        token's own, else the caller's personal one) and checked the role there.
        The agent and its `agent.created` event commit together."""
        with transaction.atomic():
            agent = serializer.save(created_by=person(self.request.user))
            audit.record_created(agent, Actor.from_request(self.request))

    def retrieve(self, request, *args, **kwargs):
        response = super().retrieve(request, *args, **kwargs)
        return etagged(response) if "version" in response.data else response

    def create(self, request, *args, **kwargs):
        return etagged(super().create(request, *args, **kwargs))

    def partial_update(self, request, *args, **kwargs):
        with transaction.atomic():
            agent = Agent.objects.select_for_update().filter(pk=self._own().pk).get()
            expected = parse_if_match(request.headers.get("If-Match", ""))
            if expected is not None and expected != agent.version:
                raise PreconditionFailed(
                    "This agent was saved elsewhere since you loaded it "
                    f"(it is now at version {agent.version}).",
                    details={"current_version": agent.version},
                )
            serializer = self.get_serializer(agent, data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            before = audit.snapshot(agent)
            serializer.save()
            # A PATCH that changes nothing (a form saved unchanged, a retry) is
            # no new version, so a teammate's If-Match stays good.
            if audit.record_updated(agent, Actor.from_request(request), before):
                agent.version += 1
                agent.save(update_fields=["version"])
        return etagged(Response(serializer.data))

    def destroy(self, request, *args, **kwargs):
        """Delete the agent with its conversations (tool runs stay with their
        flows), and record `agent.deleted` in the same transaction."""
        agent = self._own()
        with transaction.atomic():
            audit.record_deleted(agent, Actor.from_request(request))
            agent.delete()
        return Response({"success": True})

    def finalize_response(self, request, response, *args, **kwargs):
        """An error answered to a caller who asked for a stream is still the
        JSON envelope (the stream never started)."""
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and isinstance(
            getattr(response, "accepted_renderer", None), EventStreamRenderer
        ):
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = "application/json"
        return response

    @extend_schema(
        request=ChatInputSerializer,
        responses={200: ChatReplySerializer, 202: AwaitingSerializer},
        description="With `Accept: text/event-stream` the answer is Server-Sent "
        "Events: start, token, tool_call, tool_result, usage, then done (this "
        "JSON), approval_required (the 202 JSON) or error; see docs/agents.md.",
    )
    @action(
        detail=True,
        methods=["post"],
        renderer_classes=[JSONRenderer, EventStreamRenderer],
    )
    def chat(self, request, pk=None):
        """Send a message; 200 with the agent's reply, its tool calls and usage
        (streamed as Server-Sent Events with `Accept: text/event-stream`)."""
        agent = self.get_object()
        if not agent.shared:  # a shared agent is everyone's to chat with
            require_role(agent.caller_role, AGENTS_CHAT)
        body = ChatInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        conversation = self._conversation(agent, body.validated_data)
        if wants_stream(request):
            return stream_chat(
                request,
                agent,
                body.validated_data["content"],
                conversation,
                done=reply_body,
            )
        try:
            # A turn holds this thread while the model answers: it counts
            # against the same caps as a synchronous run (503/429 above them).
            with admitted(request, **whose_work(request.user)):
                reply = send_message(
                    agent,
                    request.user,
                    body.validated_data["content"],
                    conversation,
                    can_approve=True,
                )
        except ChatThrottled as throttled:
            raise Throttled(throttled.wait, throttled.message) from None
        except BudgetExceeded as refused:
            raise chat_error(refused) from None
        except ChatFailed as failure:
            error = chat_error(failure.error)
            error.details = {"conversation_id": str(failure.conversation.pk)}
            raise error from failure
        return reply_response(reply)

    @extend_schema(responses=ConversationSerializer(many=True))
    @action(detail=True, methods=["get"], pagination_class=PagePagination)
    def conversations(self, request, pk=None):
        """The caller's conversations with this agent, most recent first, 20 to a
        page (`?page=2`)."""
        agent = self.get_object()
        conversations = Conversation.objects.for_user(request.user).filter(agent=agent)
        page = self.paginate_queryset(conversations)
        return self.get_paginated_response(ConversationSerializer(page, many=True).data)

    def _conversation(self, agent, data) -> Conversation | None:
        """The conversation to continue; someone else's, or another agent's, is
        404; one with a tool call waiting for approval is 409."""
        conversation_id = data.get("conversation_id")
        if not conversation_id:
            return None
        try:
            conversation_id = uuid.UUID(str(conversation_id))
        except ValueError:
            conversation_id = None
        conversation = get_object_or_404(
            Conversation.objects.for_user(self.request.user).filter(agent=agent),
            pk=conversation_id,
        )
        if has_pending(conversation):
            raise Conflict(
                "A tool call in this conversation waits for your approval; "
                "approve or deny it first.",
                code="approval_pending",
            )
        return conversation


class ConversationViewSet(viewsets.ReadOnlyModelViewSet):
    """The caller's own conversations (20 to a page); anyone else's do not exist."""

    pagination_class = PagePagination
    rights = {"list": rights.AGENTS_CHAT, "retrieve": rights.AGENTS_CHAT}

    def get_queryset(self):
        conversations = Conversation.objects.for_user(self.request.user)
        if self.action == "retrieve":
            return conversations.prefetch_related(messages_with_run_workspace())
        return conversations

    def get_serializer_class(self):
        if self.action == "retrieve":
            return ConversationDetailSerializer
        return ConversationSerializer
