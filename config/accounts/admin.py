"""Users in admin: only superusers change who is staff, superuser or holds rights.

Django's own UserAdmin lets any staff member with `change_user` tick
"superuser" on their own account. Here those fields are read-only for everyone
but superusers, so the permission to edit users is not a permission to escalate.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin

PERMISSION_FIELDS = ("is_superuser", "is_staff", "user_permissions", "groups")

User = get_user_model()


class GuardedUserAdmin(UserAdmin):
    def get_readonly_fields(self, request, obj=None):
        readonly = list(super().get_readonly_fields(request, obj))
        if not request.user.is_superuser:
            readonly += [name for name in PERMISSION_FIELDS if name not in readonly]
        return readonly


admin.site.unregister(User)
admin.site.register(User, GuardedUserAdmin)
