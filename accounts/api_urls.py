"""The accounts app's routes under /api/: `/api/auth/*`, `/api/tokens`,
`/api/workspaces` with their members, variables, tokens and audit log, and
`/api/audit`; and the API's own description, `/api/schema` and `/api/docs`."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from accounts import api, api_docs
from accounts.audit_api import AuditViewSet, WorkspaceAuditViewSet
from accounts.tokens.api import ApiTokenViewSet
from accounts.tokens.workspace_api import WorkspaceTokenViewSet
from accounts.workspaces.api import (
    InvitationViewSet,
    MemberViewSet,
    WorkspaceViewSet,
)
from accounts.workspaces.variables_api import VariableViewSet

router = SimpleRouter(trailing_slash=False)
router.register("tokens", ApiTokenViewSet, basename="token")
router.register("audit", AuditViewSet, basename="audit")
router.register("workspaces", WorkspaceViewSet, basename="workspace")
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/members",
    MemberViewSet,
    basename="workspace-member",
)
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/invitations",
    InvitationViewSet,
    basename="workspace-invitation",
)
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/variables",
    VariableViewSet,
    basename="workspace-variable",
)
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/audit",
    WorkspaceAuditViewSet,
    basename="workspace-audit",
)

urlpatterns = [
    path("auth/csrf", api.csrf, name="auth-csrf"),
    path("auth/login", api.login_view, name="auth-login"),
    path("auth/logout", api.logout_view, name="auth-logout"),
    path("auth/session", api.session_view, name="auth-session"),
    path("schema", api_docs.schema, name="schema"),
    path("docs", api_docs.docs, name="docs"),
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
