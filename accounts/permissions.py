"""What a bearer token may do: the right its route declares, if a scope grants it.

In DEFAULT_PERMISSION_CLASSES, so every API view checks it; a view that sets
its own `permission_classes` lists the defaults first (the route census checks
that each does). Session requests pass here unchanged: roles are checked apart.
"""

from __future__ import annotations

from rest_framework.permissions import BasePermission

from accounts import rights
from accounts.authentication import BearerTokenAuthentication
from core.http.errors import ApiError


class TokenScopes(BasePermission):
    def has_permission(self, request, view):
        if not isinstance(request.successful_authenticator, BearerTokenAuthentication):
            return True
        right = rights.required(view, request)
        if rights.token_allows(request, right):
            return True
        needed = sorted(s for s, held in rights.SCOPE_RIGHTS.items() if right in held)
        if not needed:  # SESSION_ONLY, managing members, owning a workspace
            raise ApiError(
                "API tokens cannot do this; sign in with a browser.",
                code="permission_denied",
                status=403,
            )
        raise ApiError(
            f"This token lacks the scope this needs: {' or '.join(needed)}.",
            code="permission_denied",
            status=403,
            details={"required_scopes": needed},
        )
