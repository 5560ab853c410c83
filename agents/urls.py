"""The agents app's pages."""

from django.urls import path

from agents import views

app_name = "agents"

urlpatterns = [
    path("agents/", views.agent_list, name="list"),
    path("agents/new/", views.agent_new, name="new"),
    path("agents/<uuid:agent_id>/", views.agent_chat, name="chat"),
    path("agents/<uuid:agent_id>/edit/", views.agent_edit, name="edit"),
    path("agents/<uuid:agent_id>/visitors/", views.agent_visitors, name="visitors"),
]
