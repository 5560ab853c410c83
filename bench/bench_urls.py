"""Weir's routes plus `/bench/bare`, the bare Django JSON view used as reference."""

from __future__ import annotations

import json

from django.http import JsonResponse
from django.urls import path
from django.views.decorators.csrf import csrf_exempt

from config.urls import handler404, handler500, urlpatterns  # noqa: F401


@csrf_exempt
def bare_json(request):
    """Parse the same JSON body and answer JSON: no flow, no database."""
    payload = json.loads(request.body)
    return JsonResponse(
        {"greeting": "hi " + payload["name"], "n": len(payload["items"])}
    )


urlpatterns = [path("bench/bare", bare_json), *urlpatterns]
