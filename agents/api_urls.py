"""The agents app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from agents.api import AgentViewSet, ConversationViewSet

router = SimpleRouter(trailing_slash=False)
router.register("agents", AgentViewSet, basename="agent")
router.register("conversations", ConversationViewSet, basename="conversation")

urlpatterns = router.urls
