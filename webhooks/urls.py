"""The webhooks app's routes under /api/: the public endpoint and the secret."""

from django.urls import path

from webhooks import api, resume, views

urlpatterns = [
    path("webhooks/<str:flow_id>", views.receive, name="webhook"),
    # The rest of the path reaches the flow as `run.request.path`.
    path("webhooks/<str:flow_id>/<path:path>", views.receive, name="webhook-path"),
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
