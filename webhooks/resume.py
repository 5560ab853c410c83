"""A waiting run's resume URL: `/api/resume/<run id>/<node id>/<token>`.

The token is an HMAC of the run and node ids (flows/engine/waits.py), so the
URL is its own credential: a wrong token is a 404, exactly like a run that
does not exist. Then:

- GET never resumes (mail scanners and link unfurlers open links): it shows a
  small page saying what waits, with Approve and Reject buttons that POST;
- POST resumes the run once, with the wait node's output
  `{approved, body, query, received_at}`: the body is a JSON object, a form
  (the page's buttons) or empty; `approved` is false when the body or the
  query says `approved` false, else true. A run no longer waiting there
  (resumed already, timed out, cancelled) is a 409.

A JSON POST is answered 202 `{run_id, status: "queued"}`; the page's form
gets a page. The body is capped like a webhook's (`WEBHOOK_MAX_BODY_BYTES`).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import render
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.views.decorators.csrf import csrf_exempt

from accounts import rights
from accounts.rights import requires
from core.http.errors import Conflict, MethodNotAllowed, NotFound, ValidationFailed
from core.storable import Unstorable, check_storable
from flows.engine import waits, wake
from flows.models import FlowRun
from webhooks import limits

FORM = "application/x-www-form-urlencoded"
NOT_WAITING = (
    "This run is not waiting here any more: it was resumed already, timed out "
    "or was cancelled."
)


def _waiting_run(run_id, node_id: str, token: str) -> FlowRun:
    if not waits.token_matches(run_id, node_id, token):
        raise NotFound("No run is waiting at this address.")
    run = FlowRun.objects.select_related("flow").filter(pk=run_id).first()
    if run is None:
        raise NotFound("No run is waiting at this address.")
    return run


def _is_waiting_here(run: FlowRun, node_id: str) -> bool:
    state = run.wait_state or {}
    return run.status == FlowRun.Status.WAITING and state.get("node_id") == node_id


def _node_name(run: FlowRun, node_id: str) -> str:
    for node in run.flow.nodes:
        if isinstance(node, dict) and node.get("id") == node_id:
            return node.get("name") or node_id
    return node_id


def _said_no(value) -> bool:
    return value is False or (isinstance(value, str) and value.lower() == "false")


def _received(request: HttpRequest) -> dict:
    """The wait node's output from the POST."""
    raw = limits.read_body(request, settings.WEBHOOK_MAX_BODY_BYTES)
    content_type = request.content_type or ""
    if not raw.strip():
        body = None
    elif content_type == FORM:
        form = QueryDict(raw.decode("utf-8", errors="replace"))
        body = {key: form.get(key) for key in form}
    elif content_type == "application/json" or content_type.endswith("+json"):
        body = limits.parse_json_object(raw)
    else:
        raise ValidationFailed("Send a JSON object, an urlencoded form, or no body.")
    query = {key: request.GET.get(key) for key in request.GET}
    approved = not (
        _said_no(query.get("approved"))
        or (isinstance(body, dict) and _said_no(body.get("approved")))
    )
    received = {
        "approved": approved,
        "body": body,
        "query": query,
        "received_at": timezone.now().isoformat(),
    }
    try:
        check_storable(received, what="The request")
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None
    return received


@requires(get=rights.PUBLIC, post=rights.PUBLIC)
@csrf_exempt
def resume(request: HttpRequest, run_id, node_id: str, token: str) -> HttpResponse:
    run = _waiting_run(run_id, node_id, token)
    page = {"run": run, "node_name": _node_name(run, node_id)}
    if request.method in ("GET", "HEAD"):
        page["waiting"] = _is_waiting_here(run, node_id)
        wake_at = (run.wait_state or {}).get("wake_at")
        page["open_until"] = parse_datetime(wake_at) if wake_at else None
        return render(request, "webhooks/resume.html", page)
    if request.method != "POST":
        raise MethodNotAllowed(["GET", "POST"], "Resume links accept GET and POST.")
    received = _received(request)
    if not wake.resume(run.pk, node_id, received):
        raise Conflict(NOT_WAITING)
    if request.content_type == FORM:
        page["answered"] = "approved" if received["approved"] else "rejected"
        return render(request, "webhooks/resume.html", page)
    return JsonResponse({"run_id": str(run.pk), "status": "queued"}, status=202)
