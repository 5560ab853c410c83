"""What a chat turn answers over the API: messages, the reply (200), the turn
held for approval (202), and the error a failed turn becomes."""

from __future__ import annotations

from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.response import Response

from accounts.rights import RUNS_DATA
from accounts.workspaces.access import workspace_ids_where
from agents.models import Message
from core.http.errors import ApiError, GatewayTimeout, UpstreamError
from core.markdown import render_markdown


def messages_with_run_workspace() -> Prefetch:
    """A conversation's messages, each knowing its run's workspace (see run_id)."""
    return Prefetch("messages", queryset=Message.objects.with_run_workspace())


def run_data_workspaces(context: dict, user) -> set:
    """The ids of the workspaces where `user` may read run data, once per
    serializer `context` (one query)."""
    if "run_data_workspaces" not in context:
        context["run_data_workspaces"] = (
            set(
                workspace_ids_where(user, RUNS_DATA).values_list(
                    "workspace_id", flat=True
                )
            )
            if user.is_authenticated
            else set()
        )
    return context["run_data_workspaces"]


class MessageSerializer(serializers.ModelSerializer):
    """A message; `run_id` only for members who may read the run's data
    (needs `request` in context)."""

    html = serializers.SerializerMethodField()
    run_id = serializers.SerializerMethodField()

    class Meta:
        model = Message
        fields = [
            "id",
            "role",
            "content",
            "html",
            "tool_calls",
            "tool_call_id",
            "tool_name",
            "approval",
            "run_id",
            "usage",
            "cost_usd",
            "price_source",
            "error",
            "created_at",
        ]
        read_only_fields = fields

    def get_html(self, message) -> str:
        return render_markdown(message.content)

    @extend_schema_field(serializers.UUIDField(allow_null=True))
    def get_run_id(self, message) -> str | None:
        """The tool run's id for members of its flow's workspace who may read
        run data; null for anyone else, who could not open it (messages read
        without `with_run_workspace` show none)."""
        request = self.context.get("request")
        workspace_id = getattr(message, "run_workspace_id", None)
        if (
            message.run_id
            and request
            and workspace_id is not None
            and workspace_id in run_data_workspaces(self.context, request.user)
        ):
            return str(message.run_id)
        return None


class ReplyMessageSerializer(MessageSerializer):
    class Meta(MessageSerializer.Meta):
        fields = ["id", "role", "content", "html", "created_at"]
        read_only_fields = fields


class ToolCallSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    arguments = serializers.JSONField()
    message_id = serializers.UUIDField()
    run_id = serializers.UUIDField(
        allow_null=True,
        help_text="The run, for members who may read its data; else null.",
    )
    status = serializers.CharField(help_text="The run's status, or `refused`.")
    result = serializers.JSONField(
        help_text="What the model was sent back: `{success, status, output, "
        "error}` with the flow's final output, or that JSON as text when it was "
        "cut at 16,000 characters."
    )


class TurnUsageSerializer(serializers.Serializer):
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()
    cost_usd = serializers.FloatField(
        allow_null=True, help_text="USD for the whole turn; null if a price is unknown."
    )
    context_trimmed = serializers.IntegerField(
        required=False,
        help_text="Present when older messages were left out to fit the agent's "
        "context_tokens: how many.",
    )


class ChatReplySerializer(serializers.Serializer):
    """A `agents.chat.ChatReply` as the API answers it; `data` (the parsed
    reply) only for an agent with an output_schema."""

    conversation_id = serializers.UUIDField(source="conversation.pk")
    message = ReplyMessageSerializer()
    tool_calls = ToolCallSerializer(many=True)
    usage = TurnUsageSerializer()
    data = serializers.JSONField(required=False)

    def to_representation(self, reply):
        body = super().to_representation(reply)
        if not reply.conversation.agent.output_schema:
            del body["data"]
        return body


class HeldCallSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    arguments = serializers.JSONField()
    message_id = serializers.UUIDField(help_text="The tool message holding it.")
    status = serializers.CharField(help_text="`pending_approval`.")


class AwaitingSerializer(serializers.Serializer):
    """A turn that stopped for approval (agents/approval.py), answered 202."""

    status = serializers.CharField(read_only=True, default="awaiting_approval")
    conversation_id = serializers.UUIDField(source="conversation.pk")
    message = ReplyMessageSerializer(help_text="The answer asking for the calls.")
    pending = HeldCallSerializer(many=True, source="awaiting")
    tool_calls = ToolCallSerializer(many=True)
    usage = TurnUsageSerializer()

    def to_representation(self, reply):
        return {"status": "awaiting_approval", **super().to_representation(reply)}


def reply_body(reply) -> dict:
    """The reply as `done` (200) or `approval_required` (202) carries it."""
    if reply.awaiting:
        return AwaitingSerializer(reply).data
    return ChatReplySerializer(reply).data


def reply_response(reply) -> Response:
    return Response(reply_body(reply), status=202 if reply.awaiting else 200)


def chat_error(error) -> ApiError:
    """The API error for a failed turn's provider error (see docs/agents.md)."""
    if error.code == "timeout":
        return GatewayTimeout(error.message)
    if error.code == "budget_exceeded":
        return ApiError(error.message, code="budget_exceeded", status=429)
    if error.code == "invalid_output":
        return UpstreamError(error.message, code="invalid_output")
    return UpstreamError(error.message)
