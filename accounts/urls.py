"""The sign-in and sign-out pages, the API tokens pages, and the workspace
pages (new workspace, members, variables, audit log)."""

from django.urls import path

from accounts.audit_views import workspace_audit
from accounts.preferences.theme import set_theme
from accounts.tokens.page import tokens_page, workspace_tokens_page
from accounts.views import SignInView, SignOutView
from accounts.workspaces.variables_page import workspace_variables
from accounts.workspaces.views import invitations_page, workspace_members, workspace_new

urlpatterns = [
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", SignOutView.as_view(), name="logout"),
    path("account/tokens/", tokens_page, name="tokens"),
    path("account/theme/", set_theme, name="theme"),
    path(
        "workspaces/<uuid:workspace_id>/tokens/",
        workspace_tokens_page,
        name="workspace-tokens",
    ),
    path("workspaces/new/", workspace_new, name="workspace_new"),
    path("invitations/", invitations_page, name="invitations"),
    path(
        "workspaces/<uuid:workspace_id>/members/",
        workspace_members,
        name="members",
    ),
    path("workspaces/<uuid:workspace_id>/audit/", workspace_audit, name="audit"),
    path(
        "workspaces/<uuid:workspace_id>/variables/",
        workspace_variables,
        name="variables",
    ),
]
