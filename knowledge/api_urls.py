"""The knowledge app's routes under /api/."""

from rest_framework.routers import SimpleRouter

from knowledge.api import KnowledgeBaseViewSet

router = SimpleRouter(trailing_slash=False)
router.register("knowledge-bases", KnowledgeBaseViewSet, basename="knowledge-base")

urlpatterns = router.urls
