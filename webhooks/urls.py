"""The webhooks app's routes under /api/: a waiting run's resume link and the
secret. The public endpoint (`views.receive`) is routed in config/urls.py, at
the top level: it is the hot path."""

from django.urls import path

from webhooks import api, resume

urlpatterns = [
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
