"""A published agent's visitors' conversations, for the editors of its
workspace: `GET /api/agents/:id/visitor-conversations` (20 to a page) and
`…/visitor-conversations/:conversation_id` with its messages, tool calls
included. Anyone else gets 403 (a shared agent they can see) or 404."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.decorators import action
from rest_framework.response import Response

from agents.api_replies import MessageSerializer, messages_with_run_workspace
from agents.models import Conversation
from core.http.pagination import PagePagination


class VisitorConversationSerializer(serializers.ModelSerializer):
    visitor = serializers.CharField(
        read_only=True, help_text="The visitor's id: the same for one browser."
    )

    class Meta:
        model = Conversation
        fields = ["id", "visitor", "title", "created_at", "updated_at"]
        read_only_fields = fields


class VisitorConversationDetailSerializer(VisitorConversationSerializer):
    messages = MessageSerializer(many=True, read_only=True)

    class Meta(VisitorConversationSerializer.Meta):
        fields = [*VisitorConversationSerializer.Meta.fields, "messages"]
        read_only_fields = fields


def visitor_conversations(agent):
    return Conversation.objects.filter(agent=agent).exclude(visitor="")


class VisitorConversationsMixin:
    """Actions of `AgentViewSet`; `_own` is its editors-only lookup."""

    @extend_schema(responses=VisitorConversationSerializer(many=True))
    @action(
        detail=True,
        methods=["get"],
        url_path="visitor-conversations",
        pagination_class=PagePagination,
    )
    def visitor_conversations(self, request, pk=None):
        """Visitors' conversations with this published agent, most recent first."""
        conversations = visitor_conversations(self._own())
        page = self.paginate_queryset(conversations)
        return self.get_paginated_response(
            VisitorConversationSerializer(page, many=True).data
        )

    @extend_schema(responses=VisitorConversationDetailSerializer)
    @action(
        detail=True,
        methods=["get"],
        url_path=r"visitor-conversations/(?P<conversation_id>[0-9a-f-]{36})",
    )
    def visitor_conversation(self, request, pk=None, conversation_id=None):
        """One visitor's conversation with its messages."""
        conversation = get_object_or_404(
            visitor_conversations(self._own()).prefetch_related(
                messages_with_run_workspace()
            ),
            pk=conversation_id,
        )
        return Response(
            VisitorConversationDetailSerializer(
                conversation, context={"request": request}
            ).data
        )
