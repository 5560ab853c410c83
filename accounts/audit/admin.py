"""The audit log in the Django admin: searchable, filterable, never edited."""

from __future__ import annotations

from django.contrib import admin

from accounts.audit.models import AuditEvent


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ["at", "actor_label", "action", "target_type", "target_label"]
    list_filter = ["action", "target_type"]
    search_fields = ["actor_label", "target_label", "target_id", "request_id"]
    date_hierarchy = "at"
    fields = [
        "at",
        "action",
        "actor",
        "actor_label",
        "token_label",
        "target_type",
        "target_id",
        "target_label",
        "changes",
        "address",
        "user_agent",
        "request_id",
    ]
    readonly_fields = fields

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
