"""`ServiceAccount`: who a request made with a workspace token is.

A workspace token (`weir_wst_…`) has no person behind it: it belongs to its
workspace and keeps working after whoever made it leaves. Its requests get
this object as `request.user`: signed in, in no group, with one "membership"
(the token's own row, its `role_cap` read as the role), so accounts.workspaces.
access answers for it as for a member, and nothing is saved as made by it
(`person_of` is None: `created_by` stays empty, the audit keeps its label).
"""

from __future__ import annotations

from django.db.models import F


class ServiceAccount:
    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False
    pk = None
    id = None

    def __init__(self, token):
        self.token = token
        self.username = f"{token.name} (workspace token {token.prefix}…)"
        # Read by accounts.workspaces.access: the request reaches this workspace only.
        self.token_workspace_id = token.workspace_id

    def __str__(self):
        return self.username

    def get_username(self) -> str:
        return self.username

    def has_perm(self, perm, obj=None) -> bool:
        return False

    def has_module_perms(self, app_label) -> bool:
        return False

    @property
    def service_memberships(self):
        """Rows shaped as `Membership`s (`workspace_id`, `role`): the token's
        own, with its role cap as the role, read live on every request."""
        from accounts.tokens.models import ApiToken

        return (
            ApiToken.objects.usable()
            .filter(pk=self.token.pk)
            .annotate(role=F("role_cap"))
        )
