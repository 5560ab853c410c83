from django import forms
from django.contrib import admin
from django.db.models import JSONField
from django.forms import Textarea
from django.utils.html import format_html

from flows.audit import admin as audit_admin  # noqa: F401  (registers its admin)
from flows.audit.actor import Actor
from flows.credentials.redact import redact_shapes
from flows.history.save import save_flow
from flows.lib.ownership import may_act_for
from flows.lib.pretty import pretty_json
from flows.models import Credential, Flow, FlowRun, RunStep

PRETTY_JSON = {
    JSONField: {
        "widget": Textarea(
            attrs={"rows": 16, "cols": 100, "style": "font-family: monospace"}
        )
    }
}


def pretty(value) -> str:
    return format_html(
        "<pre style='white-space: pre-wrap'>{}</pre>", pretty_json(value) or "null"
    )


class FlowAdminForm(forms.ModelForm):
    """The webhook secret is write-only here, as in the builder (shown once).

    The field starts empty: left empty it keeps the stored secret, typed into
    it replaces the secret, and `remove_webhook_secret` clears it.
    """

    webhook_secret = forms.CharField(
        required=False,
        max_length=200,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "off"}),
        label="New webhook secret",
    )
    remove_webhook_secret = forms.BooleanField(
        required=False, label="Remove the webhook secret"
    )

    class Meta:
        model = Flow
        fields = [
            "owner",
            "name",
            "description",
            "input_schema",
            "nodes",
            "edges",
            "webhook_enabled",
            "webhook_secret",
        ]

    # Set by FlowAdmin.get_form for staff who are not superusers: a flow they
    # add is theirs, checked (credentials included) as theirs.
    author = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.author is not None and self.instance._state.adding:
            self.instance.owner = self.author
        self.initial["webhook_secret"] = ""
        is_set = bool(self.instance.pk and self.instance.webhook_secret)
        self.fields["webhook_secret"].help_text = (
            "A signing secret is set; it is never shown again. Type a new one to "
            "replace it, or leave this empty to keep it."
            if is_set
            else "No signing secret: the webhook accepts unsigned requests."
        )

    def clean_webhook_secret(self):
        typed = self.cleaned_data.get("webhook_secret", "")
        if typed:
            return typed
        return (
            Flow.objects.filter(pk=self.instance.pk)
            .values_list("webhook_secret", flat=True)
            .first()
            or ""
        )

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("remove_webhook_secret"):
            cleaned["webhook_secret"] = ""
        return cleaned


@admin.register(Flow)
class FlowAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "owner",
        "node_count",
        "webhook_enabled",
        "version",
        "updated_at",
    ]
    list_filter = ["owner", "webhook_enabled"]
    search_fields = ["name", "description"]
    readonly_fields = [
        "id",
        "version",
        "webhook_url",
        "signing_secret",
        "created_at",
        "updated_at",
    ]
    formfield_overrides = PRETTY_JSON
    list_select_related = ["owner"]
    form = FlowAdminForm

    def get_readonly_fields(self, request, obj=None):
        """A flow runs with its owner's credentials: only a superuser chooses
        the owner, and only someone who may act for the owner edits the graph
        (flows/lib/ownership.py); other staff keep its name, switches and secret."""
        readonly = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            readonly.append("owner")
        if obj is not None and not may_act_for(request.user, obj):
            readonly += ["nodes", "edges", "input_schema"]
        return readonly

    def get_fields(self, request, obj=None):
        """Someone who may only view sees whether a signing secret is set: the
        admin would show a read-only field's value, the secret itself."""
        fields = list(super().get_fields(request, obj))
        if obj is not None and not self.has_change_permission(request, obj):
            fields = [name for name in fields if "webhook_secret" not in name]
        else:
            fields.remove("signing_secret")
        return fields

    @admin.display(description="Webhook signing secret")
    def signing_secret(self, flow):
        return "A signing secret is set." if flow.webhook_secret else "None."

    def get_form(self, request, obj=None, **kwargs):
        form = super().get_form(request, obj, **kwargs)
        if obj is None and not request.user.is_superuser:
            return type(form.__name__, (form,), {"author": request.user})
        return form

    def save_model(self, request, obj, form, change):
        """Through `save_flow`, like every other change: the version goes up
        (a builder still holding the old number gets 412, not a silent
        overwrite) and the history records the admin's edit."""
        save_flow(obj, actor=Actor.from_request(request), source="admin")

    @admin.display(description="Nodes")
    def node_count(self, flow):
        return len(flow.nodes or [])


class RunStepInline(admin.TabularInline):
    model = RunStep
    extra = 0
    can_delete = False
    fields = [
        "position",
        "node_id",
        "node_type",
        "status",
        "duration_ms",
        "pretty_output",
        "pretty_error",
        "pretty_logs",
    ]
    readonly_fields = fields

    def has_add_permission(self, request, obj=None):
        return False

    @admin.display(description="Output")
    def pretty_output(self, step):
        return pretty(step.output)

    @admin.display(description="Error")
    def pretty_error(self, step):
        return pretty(step.error) if step.error else "-"

    @admin.display(description="Logs")
    def pretty_logs(self, step):
        return pretty(step.logs) if step.logs else "-"


@admin.register(FlowRun)
class FlowRunAdmin(admin.ModelAdmin):
    """Runs are history: readable, filterable, never edited."""

    list_display = [
        "id",
        "flow",
        "trigger",
        "status",
        "pinned",
        "duration_ms",
        "created_at",
    ]
    list_filter = ["status", "trigger", "pinned"]
    actions = ["pin", "unpin"]
    search_fields = ["flow__name", "id"]
    list_select_related = ["flow"]
    inlines = [RunStepInline]
    fields = [
        "id",
        "flow",
        "flow_version",
        "trigger",
        "status",
        "pretty_input",
        "pretty_results",
        "pretty_error",
        "pretty_response",
        "pretty_request_meta",
        "created_at",
        "started_at",
        "finished_at",
        "duration_ms",
        "pinned",
    ]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_pin_permission(self, request) -> bool:
        """Pinning changes what retention deletes: the change permission, not
        view (runs are otherwise read-only to everyone, so Django's own
        `has_change_permission` stays False)."""
        return request.user.has_perm("flows.change_flowrun")

    @admin.action(
        description="Pin: keep these runs whatever the retention", permissions=["pin"]
    )
    def pin(self, request, queryset):
        count = queryset.update(pinned=True)
        self.message_user(request, f"Pinned {count} runs.")

    @admin.action(
        description="Unpin: let retention delete these runs", permissions=["pin"]
    )
    def unpin(self, request, queryset):
        count = queryset.update(pinned=False)
        self.message_user(request, f"Unpinned {count} runs.")

    @admin.display(description="Input")
    def pretty_input(self, run):
        return pretty(redact_shapes(run.input))

    @admin.display(description="Results")
    def pretty_results(self, run):
        return pretty(run.results)

    @admin.display(description="Error")
    def pretty_error(self, run):
        return pretty(run.error) if run.error else "-"

    @admin.display(description="Response")
    def pretty_response(self, run):
        return pretty(run.response) if run.response else "-"

    @admin.display(description="Request")
    def pretty_request_meta(self, run):
        return pretty(run.request_meta) if run.request_meta else "-"


@admin.register(Credential)
class CredentialAdmin(admin.ModelAdmin):
    """Who holds which credential and when it was last used; never its value.

    Read-only: secrets are entered by their owner on the Credentials page, and
    the encrypted column is not even among the fields an admin can see.
    """

    list_display = ["name", "owner", "kind", "last_used_at", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["owner"]
    fields = [
        "id",
        "name",
        "owner",
        "kind",
        "public",
        "has_value",
        "last_used_at",
        "created_at",
        "updated_at",
    ]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
