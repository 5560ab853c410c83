"""The flows-as-files route under /api/ (flows/git/api.py)."""

from django.urls import path

from flows.git.api import WorkspaceSyncView

urlpatterns = [
    path(
        "workspaces/<uuid:workspace_id>/sync",
        WorkspaceSyncView.as_view(),
        name="workspace-sync",
    ),
]
