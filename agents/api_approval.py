"""`POST /api/conversations/:id/tool-calls/:call_id`: approve or deny a held call.

The answer is the resumed turn, as the chat action answers: 200 with the reply,
202 when a call still waits (another of the same answer, or a new one the model
asks for), streamed with `Accept: text/event-stream`. See agents/approval.py.
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import rights
from accounts.workspaces.access import whose_work
from accounts.workspaces.permissions import require
from accounts.workspaces.roles import AGENTS_CHAT
from agents.api_replies import (
    AwaitingSerializer,
    ChatReplySerializer,
    chat_error,
    reply_body,
    reply_response,
)
from agents.chat import ChatFailed
from agents.models import Conversation
from agents.resume import AlreadyDecided, CallNotFound, decide
from agents.stream import EventStreamRenderer, stream_turn, wants_stream
from core.http.errors import Conflict, NotFound
from flows.engine.admission import admitted

MAX_REASON_CHARS = 2_000


class DecisionSerializer(serializers.Serializer):
    decision = serializers.ChoiceField(["approve", "deny"])
    arguments = serializers.JSONField(
        required=False,
        help_text="With approve: the arguments to run with instead of the "
        "model's (a JSON object).",
    )
    reason = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=MAX_REASON_CHARS,
        help_text="With deny: told to the model.",
    )

    def validate_arguments(self, value):
        if not isinstance(value, dict):
            raise serializers.ValidationError("Tool arguments must be a JSON object.")
        return value


class ToolCallDecisionView(APIView):
    renderer_classes = [JSONRenderer, EventStreamRenderer]
    rights = {"post": rights.AGENTS_CHAT}  # deciding resumes a chat turn

    @extend_schema(
        operation_id="conversations_tool_calls_create",
        request=DecisionSerializer,
        responses={200: ChatReplySerializer, 202: AwaitingSerializer},
        description="Approve (optionally with edited arguments) or deny a tool "
        "call waiting for approval; the turn resumes. 404 for a call that is "
        "not in one of your conversations, 409 once it was decided.",
    )
    def post(self, request, pk, call_id):
        # An agent switched off since is 404 here too, as everywhere.
        conversation = get_object_or_404(
            Conversation.objects.for_user(request.user)
            .filter(agent__is_active=True)
            .select_related("agent"),
            pk=pk,
        )
        # The role is read again now, as the chat action reads it: a member
        # demoted to viewer since the call was held may not run it.
        if not conversation.agent.shared:
            require(request.user, conversation.agent.workspace_id, AGENTS_CHAT)
        body = DecisionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        # Admitted before the call is claimed: a refusal (503/429) leaves the
        # call waiting, to be decided again.
        slot = admitted(request, **whose_work(request.user))
        slot.__enter__()
        try:
            turn = _claim(conversation, call_id, data)
            if wants_stream(request):
                release = slot.__exit__
                return stream_turn(
                    turn, lambda: release(None, None, None), done=reply_body
                )
            try:
                reply = turn.run()
            except ChatFailed as failure:
                error = chat_error(failure.error)
                error.details = {"conversation_id": str(conversation.pk)}
                raise error from failure
        except BaseException:
            slot.__exit__(None, None, None)
            raise
        slot.__exit__(None, None, None)
        return reply_response(reply)

    def finalize_response(self, request, response, *args, **kwargs):
        """Errors before a stream are JSON (as `AgentViewSet.finalize_response`)."""
        response = super().finalize_response(request, response, *args, **kwargs)
        if isinstance(response, Response) and isinstance(
            getattr(response, "accepted_renderer", None), EventStreamRenderer
        ):
            response.accepted_renderer = JSONRenderer()
            response.accepted_media_type = "application/json"
        return response


def _claim(conversation, call_id: str, data: dict):
    try:
        return decide(
            conversation,
            call_id,
            approve=data["decision"] == "approve",
            arguments=data.get("arguments"),
            reason=data.get("reason", ""),
        )
    except CallNotFound:
        raise NotFound("No tool call of this conversation has this id.") from None
    except AlreadyDecided as decided:
        raise Conflict(
            f"This tool call was {decided.args[0]} already.",
            code="already_decided",
        ) from None
