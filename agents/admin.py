from django import forms
from django.contrib import admin

from agents.models import Agent, Conversation, Message
from flows.models import Flow


class AgentForm(forms.ModelForm):
    class Meta:
        model = Agent
        fields = [
            "name",
            "description",
            "model",
            "system_prompt",
            "temperature",
            "max_tokens",
            "owner",
            "tools",
            "is_active",
        ]

    def clean(self):
        cleaned = super().clean()
        owner, tools = cleaned.get("owner"), cleaned.get("tools")
        if tools and any(flow.owner_id != getattr(owner, "pk", None) for flow in tools):
            self.add_error(
                "tools", "An agent may only use flows that belong to its owner."
            )
        return cleaned


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    form = AgentForm
    list_display = ["name", "model", "owner", "is_active", "updated_at"]
    list_filter = ["is_active", "owner"]
    search_fields = ["name", "model", "description"]
    filter_horizontal = ["tools"]

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "tools":
            kwargs["queryset"] = Flow.objects.select_related("owner")
        return super().formfield_for_manytomany(db_field, request, **kwargs)


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    can_delete = False
    fields = ["created_at", "role", "content", "tool_calls", "run", "error"]
    readonly_fields = fields


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ["__str__", "agent", "user", "updated_at"]
    list_filter = ["agent"]
    search_fields = ["title", "user__username"]
    inlines = [MessageInline]
    readonly_fields = ["id", "agent", "user", "created_at", "updated_at"]
