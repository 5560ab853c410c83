"""The flows app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from flows.api import FlowViewSet
from flows.api_runs import RunViewSet
from flows.credentials.api import CredentialViewSet

router = SimpleRouter(trailing_slash=False)
router.register("flows", FlowViewSet, basename="flow")
router.register("runs", RunViewSet, basename="run")
router.register("credentials", CredentialViewSet, basename="credential")

urlpatterns = router.urls
