"""The accounts app's routes under /api/: `/api/auth/*`, `/api/tokens` and
`/api/workspaces/:id/tokens`."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from config.accounts import api
from config.accounts.tokens.api import ApiTokenViewSet
from config.accounts.tokens.workspace_api import WorkspaceTokenViewSet

router = SimpleRouter(trailing_slash=False)
router.register("tokens", ApiTokenViewSet, basename="token")

urlpatterns = [
    path("auth/csrf", api.csrf, name="auth-csrf"),
    path("auth/login", api.login_view, name="auth-login"),
    path("auth/logout", api.logout_view, name="auth-logout"),
    path("auth/session", api.session_view, name="auth-session"),
    path(
        "workspaces/<uuid:workspace_id>/tokens",
        WorkspaceTokenViewSet.as_view({"get": "list", "post": "create"}),
        name="workspace-token-list",
    ),
    path(
        "workspaces/<uuid:workspace_id>/tokens/<uuid:pk>",
        WorkspaceTokenViewSet.as_view({"delete": "destroy"}),
        name="workspace-token-detail",
    ),
    *router.urls,
]
