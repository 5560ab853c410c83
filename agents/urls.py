"""The agents app's pages."""

from django.urls import path

from agents import views

app_name = "agents"

urlpatterns = [
    path("agents/", views.agent_list, name="list"),
    path("agents/<uuid:agent_id>/", views.agent_chat, name="chat"),
]
