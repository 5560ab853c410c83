"""Routes that fail on purpose, for the error-envelope tests."""

from django.urls import include, path
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from core.http.errors import Conflict


class SecretLeak(Exception):
    pass


@api_view(["GET"])
@permission_classes([AllowAny])
def failing_api_view(request):
    raise SecretLeak("database password is hunter2")


def failing_plain_view(request):
    raise SecretLeak("database password is hunter2")


def conflicting_plain_view(request):
    raise Conflict(
        "Order 7 is already shipped.",
        details={"order": 7},
        headers={"Retry-After": "30"},
    )


urlpatterns = [
    path("api/boom", failing_api_view),
    path("api/plain-boom", failing_plain_view),
    path("api/plain-conflict", conflicting_plain_view),
    path("plain-conflict/", conflicting_plain_view),
    path("", include("config.urls")),
]
