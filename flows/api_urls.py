"""The flows app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from flows.api import FlowViewSet, RunViewSet

router = SimpleRouter(trailing_slash=False)
router.register("flows", FlowViewSet, basename="flow")
router.register("runs", RunViewSet, basename="run")

urlpatterns = router.urls
