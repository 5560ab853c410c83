"""The flows app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from flows.api import FlowViewSet

router = SimpleRouter(trailing_slash=False)
router.register("flows", FlowViewSet, basename="flow")

urlpatterns = router.urls
