"""The public webhook endpoint, `POST /api/webhooks/:flowId` (DESIGN.md section 7).

A plain function view that checks the request first and fails early, cheapest
check first, then runs the flow once. The order is part of the contract:

1. unknown or malformed flow id, or webhook disabled → 404
2. method other than POST → 405 with `Allow: POST`
3. body not `application/json` → 415
4. body over `WEBHOOK_MAX_BODY_BYTES` → 413 (from Content-Length, before reading)
5. flow has a secret and the signature is missing, wrong or stale → 401
6. body not JSON, not an object, too deep → 400
7. over the flow's rate limit → 429 with Retry-After
8. signed delivery whose webhook-id was already accepted → 409
9. run the flow: exactly one FlowRun, then answer with its result; or, when
   the flow's response mode is "immediately" or the request says
   `Prefer: respond-async`, store it `queued` for a worker and answer 202
   `{run_id, status: "queued"}`

Signatures come before parsing and rate limiting on purpose: a forger neither
makes us parse their body nor spends the real sender's rate budget. The replay
check comes last so a sender retrying after a 429 with the same webhook-id is
not refused as a replay. Sessions and CSRF play no part: a signed-in browser
gets exactly what any other client gets. Refusals are raised as the API's
errors; `config.http.handlers.ApiErrorMiddleware` writes them in the envelope.
"""

from __future__ import annotations

import hashlib
import uuid

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from config.http.errors import (
    Conflict,
    MethodNotAllowed,
    NotAuthenticated,
    NotFound,
)
from flows.api import prefers_async
from flows.engine import run_flow, store
from flows.engine.background import enqueue_run
from flows.models import Flow, FlowRun
from webhooks import limits, signatures
from webhooks.request_meta import request_meta
from webhooks.responses import queued_response, run_response


def _webhook_flow(flow_id: str) -> Flow:
    """The flow whose webhook is enabled; anything else does not exist (404)."""
    try:
        pk = uuid.UUID(flow_id)
    except ValueError:
        raise NotFound() from None
    flow = store.webhook_target(pk)
    if flow is None:
        raise NotFound()
    return flow


def _verify_signature(flow: Flow, request: HttpRequest, body: bytes) -> str | None:
    """The delivery's webhook-id when the flow is signed, None when it is not."""
    if not flow.webhook_secret:
        return None
    try:
        return signatures.verify(flow.webhook_secret, request.headers, body)
    except signatures.SignatureError as exc:
        raise NotAuthenticated(str(exc)) from None


def _refuse_replay(flow: Flow, msg_id: str) -> None:
    """409 when this webhook-id was accepted inside the signature window.

    `cache.add` is atomic (SET NX on Redis), so two copies racing each other
    cannot both pass. Ids are kept twice the tolerance: a timestamp may be up to
    5 minutes in the future when first seen and still valid 5 minutes later.
    """
    digest = hashlib.sha256(msg_id.encode()).hexdigest()  # any id, a valid key
    key = f"webhook-id:{flow.pk}:{digest}"
    if not cache.add(key, 1, timeout=2 * signatures.TOLERANCE_SECONDS):
        raise Conflict(
            "This webhook-id was already delivered; send a new id for a new event."
        )


@csrf_exempt
def receive(request: HttpRequest, flow_id: str) -> HttpResponse:
    flow = _webhook_flow(flow_id)
    if request.method != "POST":
        raise MethodNotAllowed(["POST"], "Webhooks accept POST only.")
    limits.check_content_type(request)
    body = limits.read_body(request, settings.WEBHOOK_MAX_BODY_BYTES)
    msg_id = _verify_signature(flow, request, body)
    payload = limits.parse_json_object(body)
    limits.check_rate(str(flow.pk))
    if msg_id is not None:
        _refuse_replay(flow, msg_id)
    meta = request_meta(request, len(body))
    if flow.webhook_response_mode == Flow.ResponseMode.IMMEDIATELY or prefers_async(
        request
    ):
        run = enqueue_run(flow, payload, FlowRun.Trigger.WEBHOOK, request_meta=meta)
        return queued_response(run)
    run = run_flow(flow, payload, FlowRun.Trigger.WEBHOOK, request_meta=meta)
    return run_response(run)
