"""The public webhook route under /api/webhooks/."""

from django.urls import path

from webhooks import views

urlpatterns = [
    path("webhooks/<str:flow_id>", views.receive, name="webhook"),
]
