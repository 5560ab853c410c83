"""The webhooks app's routes under /api/: the public endpoint and the secret."""

from django.urls import path

from webhooks import api, views

urlpatterns = [
    path("webhooks/<str:flow_id>", views.receive, name="webhook"),
    path(
        "flows/<str:pk>/webhook-secret",
        api.WebhookSecretView.as_view(),
        name="flow-webhook-secret",
    ),
]
