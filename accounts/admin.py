"""Users in admin: only superusers change who is staff, superuser or holds rights.

Django's own UserAdmin lets any staff member with `change_user` tick
"superuser" on their own account. Here those fields are read-only for everyone
but superusers, so the permission to edit users is not a permission to escalate.
A superuser's account (password, flags, groups, active, deletion) is changed by
superusers only: setting its password would be signing in as it.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

from accounts.tokens import admin as tokens_admin  # noqa: F401  (registers it)

PERMISSION_FIELDS = ("is_superuser", "is_staff", "user_permissions", "groups")

User = get_user_model()


class GuardedUserAdmin(UserAdmin):
    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            readonly += [name for name in PERMISSION_FIELDS if name not in readonly]
        return readonly

    def has_change_permission(self, request, obj=None):
        """Also guards the password form (`user_change_password` asks this)."""
        if _above(request, obj):
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):
        if _above(request, obj):
            return False
        return super().has_delete_permission(request, obj)


def _above(request, obj) -> bool:
    """Whether `obj` is a superuser account and the one asking is not."""
    return obj is not None and obj.is_superuser and not request.user.is_superuser


admin.site.unregister(User)
admin.site.register(User, GuardedUserAdmin)
