"""The agents app's routes under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from agents.api import AgentViewSet, ConversationViewSet
from agents.api_approval import ToolCallDecisionView
from agents.mcp_view import McpView

router = SimpleRouter(trailing_slash=False)
router.register("agents", AgentViewSet, basename="agent")
router.register("conversations", ConversationViewSet, basename="conversation")

urlpatterns = [
    *router.urls,
    path("mcp", McpView.as_view(), name="mcp"),
    path(
        "conversations/<uuid:pk>/tool-calls/<str:call_id>",
        ToolCallDecisionView.as_view(),
        name="conversation-tool-call",
    ),
]
