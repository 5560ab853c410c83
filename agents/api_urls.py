"""The agents app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from agents.api import AgentViewSet

router = SimpleRouter(trailing_slash=False)
router.register("agents", AgentViewSet, basename="agent")

urlpatterns = router.urls
