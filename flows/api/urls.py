"""The flows app's routes under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from flows.api.audit import AuditViewSet, WorkspaceAuditViewSet
from flows.api.flows import FlowViewSet
from flows.api.runs import RunViewSet
from flows.api.schedules import SchedulePreviewView
from flows.api.workspaces import MemberViewSet, WorkspaceViewSet
from flows.credentials.api import CredentialViewSet

router = SimpleRouter(trailing_slash=False)
router.register("flows", FlowViewSet, basename="flow")
router.register("runs", RunViewSet, basename="run")
router.register("credentials", CredentialViewSet, basename="credential")
router.register("audit", AuditViewSet, basename="audit")
router.register("workspaces", WorkspaceViewSet, basename="workspace")
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/members",
    MemberViewSet,
    basename="workspace-member",
)
router.register(
    r"workspaces/(?P<workspace_id>[0-9a-f-]{36})/audit",
    WorkspaceAuditViewSet,
    basename="workspace-audit",
)

urlpatterns = [
    path("schedules/preview", SchedulePreviewView.as_view(), name="schedule-preview"),
    *router.urls,
]
