from django import forms
from django.contrib import admin
from django.db import transaction

from accounts.audit.actor import Actor
from accounts.models import Workspace
from accounts.workspaces.access import can, workspace_ids_where
from accounts.workspaces.personal import personal_workspace
from accounts.workspaces.roles import AGENTS_EDIT
from agents import audit
from agents.models import Agent, Conversation, Message, ModelPrice
from agents.output import schema_problem
from agents.publishing import canonical_origin, validate_origins
from flows.models import Flow


class ToolChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, flow):
        return f"{flow.name} ({flow.workspace})"


class AgentForm(forms.ModelForm):
    """Tools are limited to the workspace's flows: the choices when the
    workspace is known, and `clean` whatever is posted (the workspace may
    change in the same form). The tools that ask first are some of those
    tools; an output_schema is checked as the API checks it."""

    tools = ToolChoiceField(
        queryset=Flow.objects.select_related("workspace"),
        required=False,
        widget=admin.widgets.FilteredSelectMultiple("flows", is_stacked=False),
        help_text="Flows of the agent's workspace it may call as tools.",
    )
    approval_flows = ToolChoiceField(
        queryset=Flow.objects.select_related("workspace"),
        required=False,
        widget=admin.widgets.FilteredSelectMultiple(
            "flows that ask first", is_stacked=False
        ),
        label="Tools that require approval",
        help_text="Tool flows that run only once the person chatting approves "
        "the call (refused inside flow runs, where nobody can).",
    )

    class Meta:
        model = Agent
        fields = [
            "name",
            "description",
            "model",
            "system_prompt",
            "temperature",
            "max_tokens",
            "context_tokens",
            "created_by",
            "workspace",
            "credential",
            "tools",
            "approval_flows",
            "output_schema",
            "max_cost_per_turn",
            "max_cost_per_day",
            "is_active",
            "shared",
            "published",
            "public_slug",
            "allowed_origins",
            "visitor_rate",
            "public_rate",
            "visitor_retention_days",
        ]

    # Publishing settings with a default: a form that leaves them out (or
    # empty) keeps the default rather than failing.
    DEFAULTED = ("visitor_rate", "public_rate", "visitor_retention_days")

    # Set by AgentAdmin.get_form for staff who are not superusers: they make
    # agents as themselves, only in workspaces where they may edit agents.
    editor = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in self.DEFAULTED:
            self.fields[name].required = False
        if self.editor is not None:
            if self.instance._state.adding:
                self.instance.created_by = self.editor
            if "workspace" in self.fields:
                self.fields["workspace"].queryset = Workspace.objects.filter(
                    pk__in=workspace_ids_where(self.editor, AGENTS_EDIT)
                )
        if self.instance.workspace_id and not self.is_bound:
            workspace_flows = Flow.objects.filter(
                workspace_id=self.instance.workspace_id
            ).select_related("workspace")
            self.fields["tools"].queryset = workspace_flows
            self.fields["approval_flows"].queryset = workspace_flows

    def clean(self):
        cleaned = super().clean()
        for name in self.DEFAULTED:
            if cleaned.get(name) in (None, ""):
                cleaned[name] = Agent._meta.get_field(name).default
        workspace = (
            cleaned.get("workspace")
            if "workspace" in self.fields
            else self.instance.workspace
        )
        creator = cleaned.get("created_by") or self.instance.created_by
        if workspace is None and creator is not None:
            workspace = personal_workspace(creator)
        if workspace is None and not cleaned.get("shared"):
            self.add_error(
                "workspace",
                "With no workspace and nobody who made it, the agent is visible "
                "to nobody: choose a workspace, or tick Shared.",
            )
        tools = cleaned.get("tools")
        if tools and any(
            flow.workspace_id != getattr(workspace, "pk", None) for flow in tools
        ):
            self.add_error("tools", "An agent may only use flows of its own workspace.")
        asking = cleaned.get("approval_flows") or []
        if {flow.pk for flow in asking} - {flow.pk for flow in tools or []}:
            self.add_error(
                "approval_flows", "Only the agent's tool flows can ask first."
            )
        return cleaned

    def clean_allowed_origins(self):
        """Spelled as browsers send them (agents/publishing.py)."""
        origins = self.cleaned_data.get("allowed_origins") or []
        validate_origins(origins)
        return list(dict.fromkeys(canonical_origin(origin) for origin in origins))

    def clean_output_schema(self):
        schema = self.cleaned_data.get("output_schema")
        problem = schema is not None and schema_problem(schema)
        if problem:
            raise forms.ValidationError(problem)
        return schema


def may_edit_agent(user, agent) -> bool:
    """Whether `user` may decide what `agent` runs and with which key (its
    workspace, tools, credential): superusers, and editors of its workspace.
    Other staff with agent rights would run that workspace's flows, with its
    credentials, and spend its key."""
    return user.is_superuser or (
        agent.workspace_id is not None and can(user, agent.workspace_id, AGENTS_EDIT)
    )


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    form = AgentForm
    list_display = [
        "name",
        "model",
        "workspace",
        "is_active",
        "shared",
        "published",
        "updated_at",
    ]
    list_filter = ["is_active", "shared", "published"]
    search_fields = ["name", "model", "description"]

    def get_readonly_fields(self, request, obj=None):
        """Only a superuser sets who made an agent; only someone who may edit
        agents in its workspace changes its workspace, tools and credential."""
        readonly = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            readonly.append("created_by")
            if obj is not None and not may_edit_agent(request.user, obj):
                readonly += ["workspace", "tools", "credential"]
        return readonly

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if not request.user.is_superuser:
            return type(form.__name__, (form,), {"editor": request.user})
        return form

    # The admin's add, change and delete views run in one transaction: each
    # event below commits or rolls back with its change (docs/history.md).

    def save_model(self, request, obj, form, change):
        """Note the stored agent before the form's values are saved over it."""
        form.audit_before = audit.stored_snapshot(obj.pk) if change else None
        super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        """The tools are saved here, after the agent: now its event is whole."""
        super().save_related(request, form, formsets, change)
        actor = Actor.from_request(request)
        if change:
            # A real change is a new version, as through the API: an API
            # client's If-Match of the version it loaded then gets 412.
            if audit.record_updated(form.instance, actor, form.audit_before):
                form.instance.version += 1
                form.instance.save(update_fields=["version"])
        else:
            audit.record_created(form.instance, actor)

    def delete_model(self, request, obj):
        with transaction.atomic():
            audit.record_deleted(obj, Actor.from_request(request))
            super().delete_model(request, obj)

    def delete_queryset(self, request, queryset):
        """The list's "delete selected": one event for each agent."""
        with transaction.atomic():
            actor = Actor.from_request(request)
            for agent in queryset:
                audit.record_deleted(agent, actor)
            super().delete_queryset(request, queryset)


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    can_delete = False
    fields = [
        "created_at",
        "role",
        "content",
        "tool_name",
        "tool_calls",
        "run",
        "error",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["__str__", "agent", "user", "visitor", "updated_at"]
    list_filter = ["agent"]
    search_fields = ["title", "user__username", "visitor"]
    inlines = [MessageInline]
    readonly_fields = ["id", "agent", "user", "visitor", "created_at", "updated_at"]


@admin.register(ModelPrice)
class ModelPriceAdmin(admin.ModelAdmin):
    """Prices that win over genai-prices (agents/pricing.py), USD per million."""

    list_display = [
        "model",
        "input_per_mtok",
        "cached_input_per_mtok",
        "output_per_mtok",
        "updated_at",
    ]
    search_fields = ["model"]
