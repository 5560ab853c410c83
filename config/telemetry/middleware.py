"""The request id: taken from `X-Request-ID` when it is sane, else made here.

Set for the whole request (every log line carries it) and returned in the
response's `X-Request-ID`, so a client, a proxy and our logs name the same
request. A sender's id is accepted only if it is short and made of safe
characters: anything else could forge log fields or carry a secret.
"""

from __future__ import annotations

import re
import uuid

from django.core.signals import request_finished
from django.dispatch import receiver

from config.telemetry import context

HEADER = "X-Request-ID"
SANE_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


def request_id_of(request) -> str:
    given = request.headers.get(HEADER, "")
    if SANE_ID.fullmatch(given):
        return given
    return uuid.uuid4().hex


class RequestIdMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        request_id = request_id_of(request)
        request.request_id = request_id
        context.set_request_id(request_id)
        response = self.get_response(request)
        response[HEADER] = request_id
        return response


@receiver(request_finished)
def _forget_request_id(sender, **kwargs):
    context.set_request_id(None)
