"""The sign-in and sign-out pages, and the API tokens pages."""

from django.urls import path

from config.accounts.tokens.page import tokens_page, workspace_tokens_page
from config.accounts.views import SignInView, SignOutView

urlpatterns = [
    path("login/", SignInView.as_view(), name="login"),
    path("logout/", SignOutView.as_view(), name="logout"),
    path("account/tokens/", tokens_page, name="tokens"),
    path(
        "workspaces/<uuid:workspace_id>/tokens/",
        workspace_tokens_page,
        name="workspace-tokens",
    ),
]
