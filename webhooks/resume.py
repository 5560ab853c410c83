"""A waiting run's resume URL: `/api/resume/<run id>/<node id>/<token>`.

The token is an HMAC of the run and node ids (flows/engine/waits.py), so the
URL is its own credential: a wrong token is a 404, exactly like a run that
does not exist. Then:

- GET never resumes (mail scanners and link unfurlers open links): it shows
  the page the wait node chose (webhooks/resume_page.py): what waits, its
  context, its fields, and Approve and Reject buttons (Submit for a form
  wait) that POST; an expired link says so;
- POST resumes the run once, with the wait node's output
  `{approved, decision, values, comment, decided_by, body, query,
  received_at}`: the body is a JSON object, the page's form (urlencoded or
  multipart, its fields checked as a form page's: errors answer 400 beside
  their fields; a JSON body's `values` are held to the same fields) or
  empty; `approved` is false when the body or the query
  says `approved` false, else true. A run no longer waiting there (resumed
  already, timed out, cancelled) is a 409.

A JSON POST is answered 202 `{run_id, status: "queued"}`; the page's form
gets a page. The body is capped like a webhook's (`WEBHOOK_MAX_BODY_BYTES`).
The link is the authorisation; the page's form also carries Django's CSRF
token (checked after the size, as a form page does), so another site cannot
make a visitor's browser answer for them. A program's POST (JSON or no body)
needs no token, but one sent by a browser from another origin is refused: a
cross-site page can send neither JSON nor a token, only a bodiless or
`text/plain` POST, and that must not approve.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie

from accounts import rights
from accounts.rights import requires
from core.http.errors import (
    Conflict,
    CsrfFailed,
    MethodNotAllowed,
    NotFound,
    ValidationFailed,
)
from core.http.handlers import sent_as_is
from core.storable import Unstorable, check_storable
from flows.engine import waits, wake
from flows.forms.fields import JsonValues, clean
from flows.models import FlowRun
from webhooks import limits
from webhooks.form_submission import field_rows
from webhooks.resume_page import (
    PAGE_TYPES,
    check_size,
    decided_by,
    page_answer,
    page_context,
    page_of,
)

_CSRF = CsrfViewMiddleware(lambda request: None)
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


def _said_no(value) -> bool:
    return value is False or (isinstance(value, str) and value.lower() == "false")


def _received(request: HttpRequest) -> dict:
    """The wait node's output from a program's POST (JSON or no body)."""
    raw = limits.read_body(request, settings.WEBHOOK_MAX_BODY_BYTES)
    content_type = request.content_type or ""
    if not raw.strip():
        body = None
    elif content_type == "application/json" or content_type.endswith("+json"):
        body = limits.parse_json_object(raw)
    else:
        raise ValidationFailed("Send a JSON object, an urlencoded form, or no body.")
    query = {key: request.GET.get(key) for key in request.GET}
    approved = not (
        _said_no(query.get("approved"))
        or (isinstance(body, dict) and _said_no(body.get("approved")))
    )
    values = body.get("values") if isinstance(body, dict) else None
    comment = body.get("comment") if isinstance(body, dict) else None
    return {
        "approved": approved,
        "decision": "approved" if approved else "rejected",
        "values": values if isinstance(values, dict) else {},
        "comment": comment if isinstance(comment, str) else None,
        "decided_by": decided_by(request),
        "body": body,
        "query": query,
        "received_at": timezone.now().isoformat(),
    }


def _held_to_fields(run: FlowRun, received: dict) -> dict:
    """A JSON answer's `values` checked against the wait page's fields, as
    the page's form is (400 with the errors by field): the link of a form
    wait is handed to a form page's visitor, who may post JSON instead."""
    fields = page_of(run).get("fields", [])
    if not fields:
        return received
    values, errors = clean(fields, JsonValues(received["values"]), {})
    if errors:
        raise ValidationFailed(
            "Some values are not right: " + "; ".join(errors.values()),
            details={name: [error] for name, error in errors.items()},
        )
    return {**received, "values": values}


def _checked(received: dict) -> dict:
    try:
        check_storable(received, what="The request")
    except Unstorable as problem:
        raise ValidationFailed(str(problem)) from None
    return received


def _from_page(request: HttpRequest, run: FlowRun, node_id: str) -> HttpResponse:
    check_size(request)
    refusal = _CSRF.process_view(request, None, (), {})
    if refusal is not None:
        return refusal
    received, errors = page_answer(request, run)
    if errors:
        page = page_context(
            run,
            node_id,
            rows=field_rows(page_of(run).get("fields", []), request.POST, errors),
            comment=request.POST.get("comment", ""),
            comment_error=errors.get("comment", ""),
        )
        return sent_as_is(render(request, "webhooks/resume.html", page, status=400))
    is_form = (run.wait_state or {}).get("mode") == "form"
    if not wake.resume(run.pk, node_id, _checked(received)):
        page = page_context(run, node_id)
        return sent_as_is(render(request, "webhooks/resume.html", page, status=409))
    answered = "sent" if is_form else received["decision"]
    page = page_context(run, node_id, answered=answered)
    return render(request, "webhooks/resume.html", page)


def _check_origin(request: HttpRequest) -> None:
    """A program's POST from a browser on another site is refused: the
    browser sends `Origin` with every POST, a program does not."""
    origin = request.headers.get("Origin")
    if origin is None:
        return
    own = f"{request.scheme}://{request.get_host()}"
    if origin != own and origin not in settings.CSRF_TRUSTED_ORIGINS:
        raise CsrfFailed(f"Origin checking failed - {origin} does not match.")


@requires(get=rights.PUBLIC, post=rights.PUBLIC)
@csrf_exempt  # the page's form is checked in _from_page, after the size
@ensure_csrf_cookie
def resume(request: HttpRequest, run_id, node_id: str, token: str) -> HttpResponse:
    run = _waiting_run(run_id, node_id, token)
    if request.method in ("GET", "HEAD"):
        return render(request, "webhooks/resume.html", page_context(run, node_id))
    if request.method != "POST":
        raise MethodNotAllowed(["GET", "POST"], "Resume links accept GET and POST.")
    if request.content_type in PAGE_TYPES:
        return _from_page(request, run, node_id)
    _check_origin(request)
    received = _checked(_held_to_fields(run, _received(request)))
    if not wake.resume(run.pk, node_id, received):
        raise Conflict(NOT_WAITING)
    return JsonResponse({"run_id": str(run.pk), "status": "queued"}, status=202)
