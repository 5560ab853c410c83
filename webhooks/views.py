"""The public webhook endpoint, `/api/webhooks/:flowId[/any/path]` (docs/webhooks.md).

A plain function view that checks the request first and fails early, cheapest
check first, then runs the flow once. The order is part of the contract (before
any of it, on every URL, a body whose charset is a codec that is no character
set is 415: core/http/body_charset.py):

1. unknown or malformed flow id, or webhook disabled → 404
2. a method the webhook node does not take → 405 with `Allow`; OPTIONS → 204
   with `Allow`; HEAD (when GET is taken) → 200, running nothing
3. JSON in a charset other than UTF-8, text in an unknown charset → 415
4. body over `WEBHOOK_MAX_BODY_BYTES` → 413 (from Content-Length, before reading)
5. flow has a secret and the signature (its scheme's: Standard Webhooks,
   GitHub, Stripe or Slack) is missing, wrong or stale → 401
6. body not valid for its type (JSON, form, multipart) or too deep;
   a delivery id (Idempotency-Key, X-GitHub-Delivery) too long → 400
7. over the flow's rate limit → 429 with Retry-After
8. a delivery id already used: its run's stored answer (`Idempotent-Replayed`),
   or 409 while that run is still going or when the body differs; before any
   cap, so a sender's retry gets its answer however busy the server is
9. waited too long in the server's queue, or this process is full of slow
   runs → 503; the flow or its owner at its cap of slow synchronous runs → 429
   (admission; a caller meeting runs that are still young waits for a slot)
10. run the flow: exactly one FlowRun, then answer with its result; or, when
   the flow's response mode is "immediately" or the request says
   `Prefer: respond-async`, store it `queued` for a worker and answer 202
   `{run_id, status: "queued"}` (no admission cap: it holds no thread); a
   run that reaches a wait node is answered at once (webhooks/responses.py)

Signatures come before parsing and rate limiting on purpose: a forger neither
makes us parse their body nor spends the real sender's rate budget. The
delivery id is looked up and claimed in one place, `run_once`
(flows/engine/once.py): the run's own INSERT claims it, so it is only recorded
for a request that runs: a retry after a 429 or 503 with the same id runs.
Sessions and CSRF play no part: a signed-in browser gets exactly what any
other client gets. Refusals are raised as the API's errors;
`core.http.handlers.ApiErrorMiddleware` writes them in the envelope.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from accounts import rights
from accounts.rights import requires
from accounts.workspaces.access import flow_work
from core.http.errors import (
    Conflict,
    MethodNotAllowed,
    NotAuthenticated,
    PayloadTooLarge,
    ValidationFailed,
)
from core.http.respond_async import accepted, prefers_async
from core.storable import Unstorable, check_storable
from flows.engine import deliveries, plan, webhook_cache
from flows.engine.admission import admitted
from flows.engine.once import run_once
from flows.files import FileTooLarge, RunFiles, claim, files_in, is_file
from flows.models import Flow, FlowRun
from webhooks import bodies, limits, metrics, provider_signatures, signatures
from webhooks.request_meta import request_meta
from webhooks.responses import run_response

IDEMPOTENCY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"


def _webhook_flow(
    request: HttpRequest, flow_id: str
) -> tuple[Flow, dict, tuple[str, ...]]:
    """The flow whose webhook is enabled and that has a Webhook trigger node,
    with that node's data and methods; anything else does not exist (404, or
    429 for an address that keeps missing: `limits.miss`)."""
    try:
        pk = uuid.UUID(flow_id)
    except ValueError:
        raise limits.miss(request) from None
    flow = webhook_cache.webhook_target(pk)
    entry = None if flow is None else plan.webhook_entry(flow)
    if entry is None:
        raise limits.miss(request)
    return flow, *entry


def _verify_signature(flow: Flow, request: HttpRequest, body: bytes) -> str | None:
    """The delivery's webhook-id when the flow is signed, None when it is not."""
    if not flow.webhook_secret:
        return None
    try:
        return provider_signatures.verify(
            flow.webhook_signature_scheme, flow.webhook_secret, request.headers, body
        )
    except signatures.SignatureError as exc:
        raise NotAuthenticated(str(exc)) from None


def _delivery_id(request: HttpRequest, signed_id: str | None) -> str:
    """The id that makes a retry of this delivery run once: the signed
    webhook-id, else the optional Idempotency-Key; "" without either."""
    key = signed_id
    name = "The delivery id"  # a scheme's own header (X-GitHub-Delivery)
    if key is None:
        key = request.headers.get(IDEMPOTENCY_HEADER, "")
        name = IDEMPOTENCY_HEADER
    # Checked whatever its header: GitHub signs the body, not its delivery id.
    if len(key) > signatures.MAX_ID_LENGTH:
        raise ValidationFailed(
            f"{name} is longer than {signatures.MAX_ID_LENGTH} characters."
        )
    if deliveries.is_internal(key):
        raise ValidationFailed(
            f"A delivery id may not start with {key.split(':')[0]}: (reserved "
            "for the server's own runs); send another id."
        )
    return key


def _check_storable(path: str, query: dict, parsed: bodies.Parsed) -> None:
    """400 for a path, query or file name the run could not store (a NUL): it
    would end as a failed run answered 500 instead."""
    if not (path or query or parsed.uploads):
        return  # nothing to check: the body was checked as it was parsed
    names = [[upload.field, upload.name] for upload in parsed.uploads]
    try:
        check_storable(
            {"path": path, "query": query, "files": names},
            what="The request's path, query or file names",
        )
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None


def _with_files(parsed: bodies.Parsed, files: RunFiles):
    """The input, each uploaded file stored as a run file and its marker in
    its place; 413 past a file limit."""
    if not parsed.uploads:
        return parsed.value
    try:
        markers = [
            files.store(
                name=upload.name, content_type=upload.content_type, data=upload.data
            )
            for upload in parsed.uploads
        ]
    except FileTooLarge as error:
        raise PayloadTooLarge(
            error.message, details={"limit": error.limit, "setting": error.limit_name}
        ) from None
    return parsed.with_files(markers)


def _by_content(value):
    """`value` with each file marker standing for its bytes' digest: a
    repeated delivery's uploads are stored anew, under new ids."""
    if is_file(value):
        return {"$file": value["$file"].get("sha256")}
    if isinstance(value, dict):
        return {key: _by_content(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_by_content(item) for item in value]
    return value


def _answer_repeat(existing: FlowRun | None, payload) -> HttpResponse:
    """The stored answer of the delivery's finished run, or 409."""
    if existing is not None and existing.trigger != FlowRun.Trigger.WEBHOOK:
        # Only a webhook caller could have made the original delivery.
        raise Conflict("This delivery id belongs to another kind of run.")
    if existing is None or existing.status in FlowRun.UNFINISHED:
        raise Conflict(
            "This delivery is still running; retry once it has finished to get "
            "its answer."
        )
    if _by_content(existing.input) != _by_content(payload):
        raise Conflict(
            "This delivery id was already used with a different body; send a "
            "new id for a new event."
        )
    response = run_response(existing)
    response[REPLAYED_HEADER] = "true"
    return response


def _allowed(methods: tuple[str, ...]) -> list[str]:
    """What `Allow` names: the node's methods, HEAD beside GET, and OPTIONS."""
    return [*methods, *(["HEAD"] if "GET" in methods else []), "OPTIONS"]


def _check_method(
    request: HttpRequest, methods: tuple[str, ...]
) -> HttpResponse | None:
    """An answer of its own for OPTIONS and HEAD; 405 for a method not taken;
    None for a method taken (never OPTIONS or HEAD: `methods_of`)."""
    if request.method in methods:
        return None
    allow = ", ".join(_allowed(methods))
    if request.method == "OPTIONS":
        return HttpResponse(status=204, headers={"Allow": allow})
    if request.method == "HEAD" and "GET" in methods:
        return HttpResponse(status=200, headers={"Allow": allow})
    raise MethodNotAllowed(
        _allowed(methods), f"This webhook accepts {', '.join(methods)}."
    )


_PUBLIC = {
    method: rights.PUBLIC
    for method in ("get", "post", "put", "patch", "delete", "head", "options")
}


@requires(**_PUBLIC)
@csrf_exempt
@metrics.timed
def receive(request: HttpRequest, flow_id: str, path: str = "") -> HttpResponse:
    flow, trigger, methods = _webhook_flow(request, flow_id)
    answer = _check_method(request, methods)
    if answer is not None:
        return answer
    hops = limits.check_hops(request)
    bodies.check_charset(request)
    body = limits.read_body(request, settings.WEBHOOK_MAX_BODY_BYTES)
    msg_id = _verify_signature(flow, request, body)
    parsed = bodies.parse(request, body)
    delivery_id = _delivery_id(request, msg_id)
    limits.check_rate(str(flow.pk))
    files = RunFiles(flow.workspace_id)
    query = bodies.query_object(request)
    _check_storable(path, query, parsed)
    payload = _with_files(parsed, files)
    meta = request_meta(
        request,
        len(body),
        path=path,
        query=query,
        keep_headers=trigger.get("keep_headers"),
    )
    if flow.webhook_response_mode == Flow.ResponseMode.IMMEDIATELY or (
        prefers_async(request)
    ):
        # The hop count goes with the queued run, so a loop of webhooks
        # answered at once still stops at WEBHOOK_MAX_HOPS.
        run, repeat = run_once(
            flow,
            payload,
            FlowRun.Trigger.WEBHOOK,
            delivery_id=delivery_id,
            background=True,
            queue_cap=True,
            request_meta={**meta, "hops": hops},
        )
        if repeat:
            return _answer_repeat(run, payload)
        if parsed.uploads:  # what this request stored becomes the run's
            claim(files_in(payload), run.id)
        return accepted(run.id, run.status)
    run, repeat = run_once(
        flow,
        payload,
        FlowRun.Trigger.WEBHOOK,
        delivery_id=delivery_id,
        admit=admitted(request, **flow_work(flow)),
        request_meta=meta,
        hops=hops,
        files=files,
        # Checked as parsed; an upload's marker holds the type its sender named.
        input_checked=not parsed.uploads,
    )
    if repeat:
        return _answer_repeat(run, payload)
    return run_response(run)
