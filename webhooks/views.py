"""The public webhook endpoint (DESIGN.md section 7)."""

from __future__ import annotations

from django.views.decorators.csrf import csrf_exempt

from config.api_errors import error_response


@csrf_exempt
def receive(request, flow_id):
    return error_response(404)
