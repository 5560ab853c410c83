"""The public routes of published agents: `/c/…` (agents/public/views.py)."""

from django.urls import path

from agents.public import views

app_name = "public_chat"

urlpatterns = [
    path("c/widget.js", views.widget_script, name="widget"),
    path("c/<slug:slug>", views.chat_page, name="page"),
    path("c/<slug:slug>/session", views.session, name="session"),
    path("c/<slug:slug>/chat", views.chat, name="chat"),
    path(
        "c/<slug:slug>/conversations/<uuid:conversation_id>",
        views.conversation,
        name="conversation",
    ),
]
