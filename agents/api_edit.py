"""What an agent's owner reads and writes: the settings behind `/api/agents/:id`.

Everyone who may chat with an agent sees `AgentSerializer` (name, model,
description, tool names). Its owner also sees and edits the rest: system prompt,
temperature, max tokens, the credential holding the key, the tool flows (by id:
they are the owner's own) and `version`, for If-Match.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.core.validators import URLValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.workspaces.fields import WorkspaceField
from accounts.workspaces.permissions import require
from accounts.workspaces.personal import default_workspace
from accounts.workspaces.roles import AGENTS_EDIT
from agents import mcp_tools
from agents.models import KEY_KINDS, Agent, validate_model_string
from agents.output import schema_problem
from agents.providers import ChatRequest, provider_for
from agents.publishing import publishing_checked
from agents.server_key import require_own_key
from agents.tools import Toolbox
from flows.models import Credential, Flow
from knowledge.models import KnowledgeBase

# A connection test asks for a word or two; it should not wait a full turn.
TEST_TIMEOUT_SECONDS = 15.0


WRONG_WORKSPACE = "The credential must belong to the agent's workspace."


def require_agents_workspace(attrs: dict, agent) -> None:
    """The agent's credential, its MCP servers' credentials and its tool flows
    are of the agent's workspace (a new agent's: the one it is made in), never
    of another workspace the editor is in: the agent would send that key to a
    server of the editor's choosing."""
    workspace_id = agent.workspace_id if agent else attrs["workspace"].pk
    for field in ("tools", "approval_flows"):
        if any(flow.workspace_id != workspace_id for flow in attrs.get(field) or []):
            name = "tool_flows" if field == "tools" else field
            raise serializers.ValidationError(
                {name: ["A tool flow must be of the agent's workspace."]}
            )
    if any(
        base.workspace_id != workspace_id for base in attrs.get("knowledge_bases") or []
    ):
        raise serializers.ValidationError(
            {"knowledge_bases": ["A knowledge base must be of the agent's workspace."]}
        )
    credential = attrs.get("credential")
    if credential is not None and credential.workspace_id != workspace_id:
        raise serializers.ValidationError({"credential": [WRONG_WORKSPACE]})
    named = {
        str(index): server["credential"]
        for index, server in enumerate(attrs.get("mcp_servers") or [])
        if server.get("credential")
    }
    inside = {
        str(pk)
        for pk in Credential.objects.filter(
            pk__in=set(named.values()), workspace_id=workspace_id
        ).values_list("pk", flat=True)
    }
    wrong = {
        index: {"credential": [WRONG_WORKSPACE]}
        for index, pk in named.items()
        if pk not in inside
    }
    if wrong:
        raise serializers.ValidationError({"mcp_servers": wrong})


def tool_listing(agent) -> list[dict]:
    """The agent's tools by function name; never a flow's id, which would let
    anyone who chats call its owner's webhook."""
    toolbox = Toolbox.for_agent(agent)
    return [
        {
            "name": spec.name,
            "title": spec.title,
            "description": spec.description,
            "requires_approval": toolbox.asks_first(spec.name),
        }
        for spec in toolbox.specs
    ]


@extend_schema_field(OpenApiTypes.UUID)
class OwnFlowField(serializers.PrimaryKeyRelatedField):
    """A flow of the request's user; anyone else's reads as missing."""

    default_error_messages = {
        "does_not_exist": "No flow of yours has this id.",
        "incorrect_type": "A flow id is a UUID.",
    }

    def get_queryset(self):
        return Flow.objects.for_user(self.context["request"].user)


class OwnKnowledgeBaseField(serializers.PrimaryKeyRelatedField):
    """A knowledge base of a workspace of the request's user."""

    default_error_messages = {
        "does_not_exist": "No knowledge base of yours has this id.",
        "incorrect_type": "A knowledge base id is a UUID.",
    }

    def get_queryset(self):
        return KnowledgeBase.objects.for_user(self.context["request"].user)


@extend_schema_field(OpenApiTypes.UUID)
class OwnKeyCredentialField(serializers.PrimaryKeyRelatedField):
    """A bearer or header credential of a workspace of the request's user (it
    holds the key). Which workspace an agent may use is the serializer's
    check (`require_agents_workspace`): this field knows no agent."""

    default_error_messages = {
        "does_not_exist": "No bearer or header credential of yours has this id.",
        "incorrect_type": "A credential id is a UUID.",
    }

    def get_queryset(self):
        return Credential.objects.for_user(self.context["request"].user).filter(
            kind__in=KEY_KINDS
        )


class McpServerSerializer(serializers.Serializer):
    """One MCP server of an agent (stored in `Agent.mcp_servers`)."""

    name = serializers.RegexField(
        mcp_tools.SERVER_NAME,
        error_messages={
            "invalid": "1 to 20 of a-z, 0-9, _ and -, starting with a letter or digit."
        },
    )
    url = serializers.URLField(
        max_length=2000,
        validators=[URLValidator(schemes=["http", "https"], message="An http(s) URL.")],
    )
    credential = OwnKeyCredentialField(allow_null=True, required=False, default=None)
    allowed_tools = serializers.ListField(
        child=serializers.CharField(max_length=200), max_length=100, default=list
    )
    timeout_seconds = serializers.IntegerField(
        min_value=1,
        max_value=mcp_tools.MAX_TIMEOUT_SECONDS,
        default=mcp_tools.DEFAULT_TIMEOUT_SECONDS,
    )
    requires_approval = serializers.BooleanField(
        default=False,
        help_text="Every tool of this server waits for the chatting person's "
        "approval (refused inside flow runs).",
    )

    def validate_allowed_tools(self, names: list) -> list:
        """Each name once, in the order given (empty offers every tool)."""
        return list(dict.fromkeys(names))

    def to_internal_value(self, data):
        value = super().to_internal_value(data)
        credential = value.get("credential")
        value["credential"] = str(credential.pk) if credential else None
        return value

    def to_representation(self, instance):
        return {
            "name": instance.get("name"),
            "url": instance.get("url"),
            "credential": instance.get("credential"),
            "allowed_tools": instance.get("allowed_tools") or [],
            "requires_approval": bool(instance.get("requires_approval")),
            "timeout_seconds": instance.get(
                "timeout_seconds", mcp_tools.DEFAULT_TIMEOUT_SECONDS
            ),
        }


class AgentEditSerializer(serializers.ModelSerializer):
    """An agent as an editor of its workspace creates, reads and edits it."""

    workspace = WorkspaceField(
        right=AGENTS_EDIT,
        help_text="On create: the workspace it belongs to, one where you are an "
        "editor (default: your personal one, or the token's). It never moves.",
    )
    tool_flows = OwnFlowField(many=True, required=False, source="tools")
    approval_flows = OwnFlowField(
        many=True,
        required=False,
        help_text="Tool flows whose calls wait for the chatting person's approval.",
    )
    knowledge_bases = OwnKnowledgeBaseField(
        many=True,
        required=False,
        help_text="Knowledge bases it searches with its search_knowledge tool.",
    )
    credential = OwnKeyCredentialField(allow_null=True, required=False)
    # A list of plain objects (a JSON field), not a nested model: DRF's
    # ModelSerializer writes it as a value.
    mcp_servers = serializers.ListField(
        child=McpServerSerializer(), required=False, max_length=mcp_tools.MAX_SERVERS
    )
    tools = serializers.SerializerMethodField()

    class Meta:
        model = Agent
        fields = [
            "id",
            "workspace",
            "name",
            "model",
            "description",
            "tools",
            "system_prompt",
            "temperature",
            "max_tokens",
            "context_tokens",
            "credential",
            "tool_flows",
            "mcp_servers",
            "approval_flows",
            "knowledge_bases",
            "output_schema",
            "max_cost_per_turn",
            "max_cost_per_day",
            "published",
            "public_slug",
            "allowed_origins",
            "visitor_rate",
            "public_rate",
            "visitor_retention_days",
            "shared",
            "version",
            "created_at",
            "updated_at",
        ]
        read_only_fields = ["id", "shared", "version", "created_at", "updated_at"]
        extra_kwargs = {
            "max_tokens": {"min_value": 1, "max_value": 200_000},
            "context_tokens": {"min_value": 256, "max_value": 10_000_000},
            "name": {"max_length": 200},
            "max_cost_per_turn": {"min_value": 0, "coerce_to_string": False},
            "max_cost_per_day": {"min_value": 0, "coerce_to_string": False},
        }

    def get_tools(self, agent) -> list[dict]:
        return tool_listing(agent)

    def validate_name(self, value: str) -> str:
        if not value.strip():
            raise serializers.ValidationError("This field may not be blank.")
        return value.strip()

    def validate_model(self, value: str) -> str:
        validate_model_string(value)
        return value

    def validate_mcp_servers(self, servers: list) -> list:
        names = [server["name"] for server in servers]
        if len(set(names)) != len(names):
            raise serializers.ValidationError("Each MCP server needs its own name.")
        return servers

    def validate_output_schema(self, value):
        problem = value is not None and schema_problem(value)
        if problem:
            raise serializers.ValidationError(problem)
        return value

    def validate(self, attrs: dict) -> dict:
        agent = self.instance
        model = attrs.get("model", agent.model if agent else "")
        credential = attrs.get("credential", agent.credential if agent else None)
        require_own_key(model, credential, self.context["request"].user)
        if agent is None and "workspace" not in attrs:
            user = self.context["request"].user
            attrs["workspace"] = default_workspace(user)
            require(user, attrs["workspace"].pk, AGENTS_EDIT)
        elif agent is not None:
            attrs.pop("workspace", None)
        require_agents_workspace(attrs, agent)
        tools = attrs.get("tools", agent.tools.all() if agent else [])
        if agent and "tools" in attrs and "approval_flows" not in attrs:
            # Tools taken away stop asking first with them.
            attrs["approval_flows"] = [
                flow for flow in agent.approval_flows.all() if flow in tools
            ]
        asking = attrs.get(
            "approval_flows", agent.approval_flows.all() if agent else []
        )
        if {flow.pk for flow in asking} - {flow.pk for flow in tools}:
            raise serializers.ValidationError(
                {"approval_flows": ["Only the agent's tool flows can ask first."]}
            )
        return publishing_checked(attrs, agent)


class EditableKeyCredentialField(OwnKeyCredentialField):
    """A key credential of a workspace where the user may edit agents: a
    member who only views a workspace's credentials must not make the server
    send its key (a paid call, and an oracle on whether the key works)."""

    def get_queryset(self):
        user = self.context["request"].user
        return super().get_queryset().for_user(user, AGENTS_EDIT)


class ConnectionTestSerializer(serializers.Serializer):
    model = serializers.CharField(max_length=200, validators=[validate_model_string])
    credential = EditableKeyCredentialField(allow_null=True, required=False)

    def validate(self, attrs: dict) -> dict:
        require_own_key(
            attrs["model"], attrs.get("credential"), self.context["request"].user
        )
        return attrs


def check_connection(model: str, credential: Credential | None) -> dict:
    """Ask `model` for a one-word answer with the key the agent would use.

    Returns `{ok, reply, latency_ms}`; raises ProviderError (the caller answers
    502/504) when the provider is down, refuses the key or does not know the model.
    """
    api_key = None
    if credential is not None:
        secrets = credential.secrets()
        api_key = secrets.get("token") or secrets.get("value")
    started = time.monotonic()
    provider = provider_for(model, api_key)
    result = provider.complete(
        ChatRequest(
            model=model.partition(":")[2],
            system="",
            messages=[{"role": "user", "content": "Reply with the word OK."}],
            temperature=0.0,
            max_tokens=16,
            timeout=min(TEST_TIMEOUT_SECONDS, settings.AGENT_TIMEOUT_SECONDS),
            max_retries=0,
        )
    )
    return {
        "ok": True,
        "reply": result.content[:200],
        "latency_ms": round((time.monotonic() - started) * 1000),
    }
