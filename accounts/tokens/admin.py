"""API tokens in the Django admin: who holds which, and a way to revoke a
leaked one. The digest is never shown and nothing else can be edited."""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.tokens.models import ApiToken


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "user",
        "prefix",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = [("revoked_at", admin.EmptyFieldListFilter)]
    search_fields = ["name", "prefix", "user__username"]
    list_select_related = ["user"]
    fields = [
        "name",
        "user",
        "prefix",
        "scopes",
        "expires_at",
        "last_used_at",
        "last_used_ip",
        "revoked_at",
        "created_at",
    ]
    readonly_fields = fields
    actions = ["revoke"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.action(description="Revoke the selected tokens", permissions=["change"])
    def revoke(self, request, queryset):
        actor = Actor.from_request(request)
        with transaction.atomic():
            for token in queryset.filter(revoked_at__isnull=True):
                token.revoke()
                record("token.revoked", actor, token, changes={"by": "admin"})
