"""LLM-backed agents, the conversations users have with them, and their messages."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.urls import reverse

from accounts.workspaces.access import member_workspace_ids
from accounts.workspaces.owned import WorkspaceOwned, WorkspaceOwnedQuerySet
from accounts.workspaces.personal import personal_workspace
from accounts.workspaces.roles import AGENTS_EDIT
from agents.model_price import ModelPrice  # noqa: F401  (the app's models)
from agents.model_strings import KEY_KINDS, validate_model_string
from agents.publishing import Publishable


class AgentQuerySet(WorkspaceOwnedQuerySet):
    def active(self):
        """Agents that answer at all; an inactive one is 404 everywhere."""
        return self.filter(is_active=True)

    def for_user(self, user, right=None):
        """The active agents `user` may list: those of their workspaces, and
        those shared with everyone (by an admin). With `right`, only those of
        the workspaces where their role holds it."""
        if not user.is_authenticated:
            return self.none()
        if right is not None:
            return super().for_user(user, right).active()
        return self.active().filter(self.reach(user) | models.Q(shared=True))

    def owned_by(self, user):
        """The active agents `user` may edit and delete: those of the
        workspaces where their role holds `agents.edit`."""
        return self.for_user(user, AGENTS_EDIT)

    def with_editable(self, user):
        """Annotate `editable`: whether `user` may edit the agent (as
        `owned_by`), in the same query as the list."""
        if not user.is_authenticated:
            return self.annotate(editable=models.Value(False))
        return self.annotate(
            editable=models.ExpressionWrapper(
                self.reach(user, AGENTS_EDIT), output_field=models.BooleanField()
            )
        )


class Agent(Publishable, WorkspaceOwned):
    """An assistant backed by an LLM (`provider:model-name`).

    Users make their own (private, like flows); an admin may mark one `shared`
    so every signed-in user may chat with it. It may call some of its owner's
    flows as tools; each call is a FlowRun.
    """

    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="agents",
        help_text="Whose agent it is; none for a shared agent nobody owns.",
    )
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    model = models.CharField(
        max_length=200,
        validators=[validate_model_string],
        help_text="provider:model-name, e.g. openai:gpt-4o-mini or echo:demo.",
    )
    system_prompt = models.TextField(blank=True)
    temperature = models.FloatField(
        default=0.7, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)]
    )
    max_tokens = models.PositiveIntegerField(default=1024)
    context_tokens = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text="Tokens of history sent at most (estimated); older exchanges "
        "are left out. Empty sends the whole history.",
    )
    tools = models.ManyToManyField(
        "flows.Flow",
        blank=True,
        related_name="agents",
        help_text="Flows of the owner this agent may call as tools.",
    )
    mcp_servers = models.JSONField(
        default=list,
        blank=True,
        help_text="MCP servers whose tools this agent may call: a list of {name, "
        "url, credential, allowed_tools, timeout_seconds} (docs/agents.md, MCP).",
    )
    approval_flows = models.ManyToManyField(
        "flows.Flow",
        blank=True,
        related_name="agents_asking_approval",
        help_text="Tool flows that run only once the person chatting approves "
        "the call (refused inside flow runs, where nobody can).",
    )
    knowledge_bases = models.ManyToManyField(
        "knowledge.KnowledgeBase",
        blank=True,
        related_name="agents",
        help_text="Knowledge bases of its workspace it searches with the "
        "search_knowledge tool (docs/knowledge.md).",
    )
    output_schema = models.JSONField(
        null=True,
        blank=True,
        help_text="JSON Schema (an object) the final reply must match; the "
        "reply is then that JSON.",
    )
    # RESTRICT: a credential an agent uses cannot be deleted alone (409 from
    # the API), or the agent would fall back to the server's key (security.md,
    # S20); deleted with its workspace, it goes with the agents.
    credential = models.ForeignKey(
        "flows.Credential",
        on_delete=models.RESTRICT,
        null=True,
        blank=True,
        related_name="agents",
        help_text="The owner's bearer or header credential holding this agent's "
        "provider API key; empty uses the server's key setting.",
    )
    max_cost_per_turn = models.DecimalField(
        max_digits=12,
        decimal_places=6,
        null=True,
        blank=True,
        help_text="USD; a turn that has spent this much makes no further model call.",
    )
    max_cost_per_day = models.DecimalField(
        max_digits=12,
        decimal_places=6,
        null=True,
        blank=True,
        help_text="USD per UTC day, all users together; past it turns are refused.",
    )
    is_active = models.BooleanField(default=True)
    shared = models.BooleanField(
        default=False,
        help_text="Every signed-in user may chat with it (only its owner edits it).",
    )
    # Up by one on every change through the API, for If-Match (as flows).
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = AgentQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("agents:chat", args=[self.id])

    @property
    def provider(self) -> str:
        return self.model.partition(":")[0]

    @property
    def model_name(self) -> str:
        return self.model.partition(":")[2]

    def clean(self):
        self.clean_publishing()
        credential = self.credential
        if credential is None:
            return
        # The admin's form is cleaned before save() fills in the workspace.
        workspace_id = self.workspace_id or (
            personal_workspace(self.created_by).pk if self.created_by_id else None
        )
        if credential.workspace_id != workspace_id:
            raise ValidationError(
                {"credential": "The credential must belong to the agent's workspace."}
            )
        if credential.kind not in KEY_KINDS:
            raise ValidationError(
                {"credential": "An API key credential is a bearer or header one."}
            )

    def provider_key(self) -> str | None:
        """The API key from the agent's credential, or None to use the setting.

        Costs one query (the credential) and one decryption when one is set.
        """
        if self.credential_id is None:
            return None
        credential = self.credential
        if (
            credential.kind not in KEY_KINDS
            or credential.workspace_id != self.workspace_id
        ):
            return None
        secrets = credential.secrets()
        return secrets.get("token") or secrets.get("value")

    def usable_tools(self) -> list:
        """The flows this agent may run: its workspace's only, even if others
        slipped in (an agent of no workspace has none).

        Filtered in Python so a prefetched `tools` costs no query per agent.
        """
        flows = [
            flow
            for flow in self.tools.all()
            if self.workspace_id is not None and flow.workspace_id == self.workspace_id
        ]
        return sorted(flows, key=lambda flow: (flow.created_at, str(flow.pk)))


class ConversationQuerySet(models.QuerySet):
    def for_user(self, user):
        """A user's own conversations with the agents they may still reach
        (shared, or of a workspace they are a member of: with an API token,
        its workspace only); anyone else's do not exist. A conversation holds
        tool results, which are the agent's workspace's flow outputs."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(user=user).filter(
            models.Q(agent__shared=True)
            | models.Q(agent__workspace__in=member_workspace_ids(user))
        )


class Conversation(models.Model):
    """A thread of messages between one user (or public visitor) and one agent."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, related_name="conversations"
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="conversations",
    )
    # A visitor of the published agent (agents/public/session.py), instead of a user.
    visitor = models.CharField(max_length=40, blank=True, db_index=True)
    title = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = ConversationQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        indexes = [
            # A user's conversations with one agent, most recent first.
            models.Index(
                fields=["user", "agent", "-updated_at"], name="conv_user_agent_idx"
            ),
        ]

    def __str__(self):
        return self.title or f"Conversation {self.id}"

    def history(self) -> list[dict]:
        """The turns to send to the model, oldest first, in the neutral shape.

        Failed turns (those with an `error`) are left out, so a conversation stays
        usable after a provider failure. Costs one query.
        """
        return [
            message.as_history_entry()
            for message in self.messages.filter(error__isnull=True)
        ]

    def touch(self) -> None:
        """Move the conversation to the top of the user's list."""
        self.save(update_fields=["updated_at"])


class MessageQuerySet(models.QuerySet):
    def with_run_workspace(self):
        """Annotate `run_workspace_id`: the workspace of the flow a tool
        message's run ran.

        Only its members with the run-data right may learn the run's id (the
        chat API and page hide it from anyone else chatting with the agent).
        """
        return self.annotate(run_workspace_id=models.F("run__flow__workspace_id"))


class Message(models.Model):
    """One turn: the user's words, the agent's reply, or a tool's result."""

    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        TOOL = "tool"

    class Approval(models.TextChoices):
        """A tool message of a tool that asks first (agents/approval.py)."""

        NONE = "", "not asked"
        PENDING = "pending_approval", "waiting for a decision"
        APPROVED = "approved"
        DENIED = "denied"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    conversation = models.ForeignKey(
        Conversation, on_delete=models.CASCADE, related_name="messages"
    )
    role = models.CharField(max_length=16, choices=Role.choices)
    content = models.TextField(blank=True)
    tool_calls = models.JSONField(
        default=list, blank=True, help_text="Tool calls the assistant asked for."
    )
    tool_call_id = models.CharField(max_length=200, blank=True)
    tool_name = models.CharField(
        max_length=200, blank=True, help_text="The tool a tool message answers."
    )
    run = models.ForeignKey(
        "flows.FlowRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="messages",
        help_text="The FlowRun a tool message reports.",
    )
    approval = models.CharField(
        max_length=20, choices=Approval.choices, blank=True, default=""
    )
    usage = models.JSONField(default=dict, blank=True)
    # What this assistant message's model call cost (agents/pricing.py); null
    # when the model's price is unknown.
    cost_usd = models.DecimalField(
        max_digits=14, decimal_places=10, null=True, blank=True
    )
    price_source = models.CharField(max_length=40, blank=True)
    error = models.JSONField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = MessageQuerySet.as_manager()

    class Meta:
        ordering = ["created_at"]
        indexes = [
            # A conversation's history in order.
            models.Index(
                fields=["conversation", "created_at"], name="msg_conv_created_idx"
            ),
        ]

    def __str__(self):
        return f"{self.role}: {self.content[:60]}"

    def as_history_entry(self) -> dict:
        """This turn as `agents.providers.ChatRequest.messages` expects it."""
        if self.role == self.Role.TOOL:
            return {
                "role": "tool",
                "tool_call_id": self.tool_call_id,
                "name": self.tool_name,
                "content": self.content,
            }
        entry = {"role": self.role, "content": self.content}
        if self.role == self.Role.ASSISTANT and self.tool_calls:
            entry["tool_calls"] = self.tool_calls
        return entry


def may_edit(agent, user) -> bool:
    """Whether `user` may edit `agent`: `agent.editable` when the list
    annotated it (`with_editable`), else one query (`owned_by`)."""
    editable = getattr(agent, "editable", None)
    if editable is not None:
        return bool(editable)
    return Agent.objects.owned_by(user).filter(pk=agent.pk).exists()
