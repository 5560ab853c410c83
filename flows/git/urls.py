"""The flows-as-files routes under /api/ (flows/git/api.py, promote_api.py)."""

from django.urls import path

from flows.git.api import WorkspaceSyncView
from flows.git.promote_api import WorkspacePromoteView

urlpatterns = [
    path(
        "workspaces/<uuid:workspace_id>/sync",
        WorkspaceSyncView.as_view(),
        name="workspace-sync",
    ),
    path(
        "workspaces/<uuid:workspace_id>/promote",
        WorkspacePromoteView.as_view(),
        name="workspace-promote",
    ),
]
