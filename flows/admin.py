from django.contrib import admin
from django.db.models import JSONField
from django.forms import Textarea
from django.utils.html import format_html
from django.utils.text import smart_split, unescape_string_literal

from accounts.audit import admin as audit_admin  # noqa: F401  (registers its admin)
from accounts.audit.actor import Actor
from accounts.rights import FLOWS_EDIT
from accounts.workspaces.access import can
from core.pretty import pretty_json
from core.redact import redact_shapes
from flows.admin_forms import MASKED_FIELDS, FlowAdminForm, literals_of
from flows.credentials.literals import LiteralSecrets
from flows.history.save import save_flow
from flows.models import AllowedAddress, Credential, Flow, FlowRun, RunStep

PRETTY_JSON = {
    JSONField: {
        "widget": Textarea(
            attrs={"rows": 16, "cols": 100, "style": "font-family: monospace"}
        )
    }
}


def may_edit_graph(user, flow) -> bool:
    """Whether `user` may decide what `flow` does with its workspace's
    credentials (its graph): superusers, and editors of its workspace; other
    staff with flow rights may not (they would read the workspace's secrets)."""
    return user.is_superuser or can(user, flow.workspace_id, FLOWS_EDIT)


def search_word(bit: str) -> str:
    """One word of an admin search as Django reads it ("a b" is one word)."""
    if bit.startswith(('"', "'")) and bit[0] == bit[-1]:
        return unescape_string_literal(bit)
    return bit


def pretty(value) -> str:
    return format_html(
        "<pre style='white-space: pre-wrap'>{}</pre>", pretty_json(value) or "null"
    )


@admin.register(Flow)
class FlowAdmin(admin.ModelAdmin):
    list_display = [
        "listed_name",  # the name, masked
        "created_by",
        "workspace",
        "node_count",
        "webhook_enabled",
        "version",
        "updated_at",
    ]
    list_filter = ["webhook_enabled"]
    search_fields = ["name", "description"]
    readonly_fields = [
        "id",
        "version",
        "webhook_url",
        "signing_secret",
        *(f"shown_{name}" for name in MASKED_FIELDS),
        "created_at",
        "updated_at",
    ]
    formfield_overrides = PRETTY_JSON
    list_select_related = ["created_by", "workspace"]
    form = FlowAdminForm

    def get_readonly_fields(self, request, obj=None):
        """A flow runs with its workspace's credentials: only a superuser sets
        who made it, and only a superuser or an editor of its workspace edits
        the graph; other staff keep its name, switches and secret."""
        readonly = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            readonly.append("created_by")
        if obj is not None and not may_edit_graph(request.user, obj):
            readonly.append("edges")  # nodes and input_schema: get_exclude
        return readonly

    def get_exclude(self, request, obj=None):
        """The graph of a flow the user may not edit is shown, masked,
        by `shown_nodes` and `shown_input_schema` instead of a form field."""
        if obj is not None and not may_edit_graph(request.user, obj):
            return ["nodes", "input_schema"]
        return super().get_exclude(request, obj)

    def get_fields(self, request, obj=None):
        """Someone who may only view sees whether a signing secret is set: the
        admin would show a read-only field's value, the secret itself. Each
        field that is read-only here shows masked (`shown_<name>`)."""
        fields = list(super().get_fields(request, obj))
        viewer = obj is not None and not self.has_change_permission(request, obj)
        if viewer:
            fields = [name for name in fields if "webhook_secret" not in name]
        else:
            fields.remove("signing_secret")
        masked = set()
        if obj is not None and not may_edit_graph(request.user, obj):
            masked |= {"nodes", "input_schema"}
        if viewer:  # every field is read-only, whoever they are in the workspace
            masked |= set(MASKED_FIELDS)
        shown = [f"shown_{name}" for name in MASKED_FIELDS if name in masked]
        fields = [f"shown_{name}" if name in masked else name for name in fields]
        return [
            name
            for name in fields + [name for name in shown if name not in fields]
            if not name.startswith("shown_") or name in shown
        ]

    def masked(self, flow, name: str):
        return literals_of(flow).scrub(getattr(flow, name))[0]

    @admin.display(description="Name")
    def shown_name(self, flow):
        return self.masked(flow, "name")

    @admin.display(description="Description")
    def shown_description(self, flow):
        return self.masked(flow, "description")

    @admin.display(description="Input schema")
    def shown_input_schema(self, flow):
        return pretty(self.masked(flow, "input_schema"))

    @admin.display(description="Nodes")
    def shown_nodes(self, flow):
        return pretty(self.masked(flow, "nodes"))

    @admin.display(description="Name", ordering="name")
    def listed_name(self, flow):
        return self.masked(flow, "name")

    def get_search_results(self, request, queryset, search_term):
        """Django's search, less the flows that match only inside a masked
        secret: otherwise staff would read a typed secret a character at a
        time. Reads the name and description of every match (one matcher,
        so one query, per workspace among them)."""
        results, duplicates = super().get_search_results(request, queryset, search_term)
        terms = [search_word(term).lower() for term in smart_split(search_term)]
        if not terms:
            return results, duplicates
        matchers, kept = {}, []
        rows = results.values_list("pk", "workspace_id", "name", "description")
        for pk, workspace_id, name, description in rows:
            if workspace_id not in matchers:
                matchers[workspace_id] = LiteralSecrets.of_workspace(workspace_id)
            shown = matchers[workspace_id].text(f"{name}\n{description}").lower()
            if all(term in shown for term in terms):
                kept.append(pk)
        return results.filter(pk__in=kept), duplicates

    def get_changelist_instance(self, request):
        """The page's flows share one matcher per workspace (a query each),
        for the name column and the checkboxes' labels."""
        changelist = super().get_changelist_instance(request)
        matchers = {}
        for flow in changelist.result_list:
            if flow.workspace_id not in matchers:
                matchers[flow.workspace_id] = literals_of(flow)
            flow._literals = matchers[flow.workspace_id]
        return changelist

    def shown(self, flow) -> Flow:
        """An unsaved stand-in for `flow` with its masked name, for where
        Django names an object: the list's checkbox label, the change page's
        title, the saved message and the action log."""
        return Flow(pk=flow.pk, name=self.masked(flow, "name"))

    def action_checkbox(self, flow):
        return super().action_checkbox(self.shown(flow))

    def render_change_form(self, request, context, add=False, change=False, **kw):
        flow = context.get("original")
        if flow is not None:
            shown = self.shown(flow)
            context.update(original=shown, subtitle=str(shown))
        return super().render_change_form(request, context, add, change, **kw)

    def response_add(self, request, obj, post_url_continue=None):
        return super().response_add(request, self.shown(obj), post_url_continue)

    def response_change(self, request, obj):
        return super().response_change(request, self.shown(obj))

    def log_addition(self, request, obj, message):
        return super().log_addition(request, self.shown(obj), message)

    def log_change(self, request, obj, message):
        return super().log_change(request, self.shown(obj), message)

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

    Read-only: secrets are entered by their workspace's editors on the
    Credentials page, and the encrypted column is not even among the fields an
    admin can see.
    """

    list_display = ["name", "workspace", "kind", "last_used_at", "updated_at"]
    list_filter = ["kind"]
    search_fields = ["name", "workspace__name"]
    list_select_related = ["workspace"]
    fields = [
        "id",
        "name",
        "workspace",
        "created_by",
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


@admin.register(AllowedAddress)
class AllowedAddressAdmin(admin.ModelAdmin):
    """Private addresses nodes may reach, beside HTTP_NODE_ALLOWLIST: a change
    applies within seconds in every process, without a restart."""

    list_display = ["entry", "note", "created_at"]
    search_fields = ["entry", "note"]


# Uploaded apps' page lives beside them (importing it registers it).
from flows.app_actions import admin as app_actions_admin  # noqa: E402, F401
