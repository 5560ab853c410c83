"""Two-factor in the admin: who has it on, and a reset for a lost phone.

Only superusers see the list or reset (delete) anyone's two-factor: staff
who could would weaken a superuser's sign-in. Nothing is added or edited
here, and no secret or recovery code is ever shown. A reset is audited as
`auth.2fa_disabled` by the superuser who did it.
"""

from __future__ import annotations

from django.contrib import admin
from django.db import transaction

from accounts.audit.actor import Actor
from accounts.audit.record import record
from accounts.two_factor.models import RecoveryCode, TwoFactor


@admin.register(TwoFactor)
class TwoFactorAdmin(admin.ModelAdmin):
    list_display = ("user", "confirmed_at", "created_at")
    fields = ("user", "confirmed_at", "created_at")
    readonly_fields = fields
    search_fields = ("user__username",)

    def has_module_permission(self, request):
        return request.user.is_active and request.user.is_superuser

    def has_view_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_delete_permission(self, request, obj=None):
        return self.has_module_permission(request)

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def delete_model(self, request, obj):
        self.delete_queryset(request, TwoFactor.objects.filter(pk=obj.pk))

    def delete_queryset(self, request, queryset):
        actor = Actor.from_request(request)
        with transaction.atomic():
            for two_factor in queryset.select_related("user"):
                RecoveryCode.objects.filter(user=two_factor.user).delete()
                two_factor.delete()
                record("auth.2fa_disabled", actor, two_factor.user)
