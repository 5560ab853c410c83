"""The flows app's routes under /api/."""

from django.urls import path
from rest_framework.routers import SimpleRouter

from flows.api.flows import FlowViewSet
from flows.api.runs import RunViewSet
from flows.app_actions.api import AppListView, AppOperationsView
from flows.credentials.api import CredentialViewSet
from flows.credentials.kinds_api import CredentialKindsView
from flows.schedules.preview_api import SchedulePreviewView

router = SimpleRouter(trailing_slash=False)
router.register("flows", FlowViewSet, basename="flow")
router.register("runs", RunViewSet, basename="run")
router.register("credentials", CredentialViewSet, basename="credential")

urlpatterns = [
    path("apps", AppListView.as_view(), name="apps"),
    path(
        "apps/<slug:slug>/operations",
        AppOperationsView.as_view(),
        name="app-operations",
    ),
    path("credential-kinds", CredentialKindsView.as_view(), name="credential-kinds"),
    path("schedules/preview", SchedulePreviewView.as_view(), name="schedule-preview"),
    *router.urls,
]
