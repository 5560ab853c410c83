"""The promotion page (flows/git/views.py), included at the site's root."""

from django.urls import path

from flows.git.views import promote_page

urlpatterns = [
    path(
        "workspaces/<uuid:workspace_id>/promote/",
        promote_page,
        name="workspace-promote-page",
    ),
]
