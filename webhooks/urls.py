"""The webhooks app's routes under /api/: the public endpoint and the secret."""

from django.urls import path

from webhooks import api, resume, views

urlpatterns = [
    path("webhooks/<str:flow_id>", views.receive, name="webhook"),
    # A waiting run's resume link (webhooks/resume.py); node ids may hold "/".
    path(
        "resume/<uuid:run_id>/<path:node_id>/<str:token>",
        resume.resume,
        name="resume",
    ),
    path(
        "flows/<str:pk>/webhook-secret",
        api.WebhookSecretView.as_view(),
        name="flow-webhook-secret",
    ),
]
