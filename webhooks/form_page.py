"""A flow's public form page, `/f/<slug>` (docs/forms.md).

GET shows the form built from the flow's form node. A POST is checked
cheapest first, each refusal a page of its own:

1. no enabled flow answers at the slug, or (members only) the visitor is
   not a signed-in member of its workspace → 404, one page for all three
   (with a sign-in link when signed out), each counted as a miss: probing
   slugs cannot tell a members' form from no form. A form asking for a
   password that is not set yet has no page either.
2. over `FORM_RATE_LIMIT` for this address and form → 429 with Retry-After
3. larger than `FORM_MAX_BODY_BYTES` (from Content-Length) → 413
4. no valid CSRF token → 403 (checked here, after the size: Django's
   middleware would read an oversized body to find the token)
5. the honeypot field filled → what a person would get (the redirect, else
   the thank-you page), and no run
6. a wrong password → 403 with the error beside the password (checked
   against the flow's hash, flows/forms/password.py)
7. invalid values → 400 with each error beside its field
8. the run starts with the values as its input, through admission; the
   answer is the node's: thank-you text, redirect, the response node's page
   (sanitised), or the form of a wait node the run reached.
"""

from __future__ import annotations

from urllib.parse import urlencode

import nh3
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.middleware.csrf import CsrfViewMiddleware
from django.shortcuts import render, resolve_url
from django.views.decorators.csrf import csrf_exempt, ensure_csrf_cookie

from accounts import rights
from accounts.rights import requires
from accounts.workspaces.access import flow_work, role_of
from core.http import ratelimit
from core.http.client_address import limit_address
from core.http.errors import Throttled
from core.markdown import render_markdown
from core.storable import Unstorable, check_storable
from flows.engine import run_flow, waits
from flows.engine.admission import admitted
from flows.files import RunFiles
from flows.forms import password
from flows.forms.fields import clean
from flows.models import Flow, FlowRun
from flows.nodes.form import form_settings
from webhooks import limits
from webhooks.form_submission import field_rows, has_files, store_uploads

HONEYPOT = "website"
PASSWORD = "form_password"
_CSRF = CsrfViewMiddleware(lambda request: None)


def _page(request, flow: Flow, form: dict, status=200, **extra) -> HttpResponse:
    page = {
        "flow": flow,
        "form": form,
        "title": form.get("title") or flow.name,
        "intro": render_markdown(form.get("intro", "")),
        "rows": field_rows(form.get("fields", [])),
        "multipart": has_files(form.get("fields", [])),
        "asks_password": form.get("access") == "password",
        "honeypot": HONEYPOT,
        **extra,
    }
    return render(request, "webhooks/form.html", page, status=status)


def _refused(
    request, status: int, message: str, headers=None, sign_in=""
) -> HttpResponse:
    page = {"message": message, "sign_in": sign_in}
    response = render(request, "webhooks/form_refused.html", page, status=status)
    for name, value in (headers or {}).items():
        response[name] = value
    return response


def _thank_you(request, flow: Flow, form: dict) -> HttpResponse:
    text = form.get("thank_you") or "Thank you, we received your answers."
    return _page(request, flow, form, answered=render_markdown(text))


def _redirect_to(form: dict) -> str | None:
    if form.get("answer") == "redirect" and form.get("redirect_url"):
        return form["redirect_url"]
    return None


def _seemingly_accepted(request, flow: Flow, form: dict) -> HttpResponse:
    """What a bot that filled the honeypot sees: what a person would (the
    redirect, else the thank-you page), so it cannot tell the trap."""
    redirect_url = _redirect_to(form)
    if redirect_url:
        return HttpResponseRedirect(redirect_url)
    return _thank_you(request, flow, form)


def _answer(request, flow: Flow, form: dict, run: FlowRun) -> HttpResponse:
    state = run.wait_state or {}
    if run.status == FlowRun.Status.WAITING and state.get("mode") == "form":
        return HttpResponseRedirect(waits.resume_path(run.pk, state["node_id"]))
    if run.status in (FlowRun.Status.FAILED, FlowRun.Status.TIMED_OUT):
        return _refused(
            request,
            502,
            "Your answers were received but could not be processed; please try "
            "again later.",
        )
    redirect_url = _redirect_to(form)
    if redirect_url:
        return HttpResponseRedirect(redirect_url)
    body = (run.response or {}).get("body")
    if form.get("answer") == "response" and isinstance(body, str):
        return _page(request, flow, form, answered=nh3.clean(body))
    return _thank_you(request, flow, form)


def _submit(request: HttpRequest, flow: Flow, form: dict) -> HttpResponse:
    rate = ratelimit.Rate.parse(settings.FORM_RATE_LIMIT)
    wait = ratelimit.hit(f"form:{flow.pk}:{limit_address(request)}", rate)
    if wait is not None:
        return _refused(
            request,
            429,
            f"Too many submissions from your address; try again in {int(wait) + 1} s.",
            {"Retry-After": str(int(wait) + 1)},
        )
    declared = request.META.get("CONTENT_LENGTH") or "0"
    if not declared.isdigit() or int(declared) > settings.FORM_MAX_BODY_BYTES:
        return _refused(
            request,
            413,
            f"The answers are larger than {settings.FORM_MAX_BODY_BYTES} bytes; "
            "send smaller files.",
        )
    refusal = _CSRF.process_view(request, None, (), {})
    if refusal is not None:
        return refusal
    if request.POST.get(HONEYPOT):
        return _seemingly_accepted(request, flow, form)
    fields = form.get("fields", [])
    if form.get("access") == "password" and not password.matches(
        flow, request.POST.get(PASSWORD, "")
    ):
        wrong = "That password is not right."
        rows = field_rows(fields, request.POST)
        return _page(request, flow, form, 403, password_error=wrong, rows=rows)
    values, errors = clean(fields, request.POST, request.FILES)
    files = RunFiles(flow.workspace_id)
    if not errors:
        errors = store_uploads(values, files)
    if not errors:
        try:
            check_storable(values, what="Your answers")
        except Unstorable as problem:
            errors = {fields[0]["name"]: str(problem)} if fields else {}
    if errors:
        rows = field_rows(fields, request.POST, errors)
        return _page(request, flow, form, 400, rows=rows)
    with admitted(request, **flow_work(flow)):
        run = run_flow(
            flow,
            values,
            FlowRun.Trigger.FORM,
            request_meta={"method": "POST", "path": request.path},
            files=files,
        )
    return _answer(request, flow, form, run)


def _may_see(request: HttpRequest, flow: Flow, form: dict) -> bool:
    if password.missing(flow, form):
        return False  # closed until its password is set (flows/api/warnings.py)
    if form.get("access") != "members":
        return True
    user = request.user
    return user.is_authenticated and role_of(user, flow.workspace_id) is not None


def _no_form(request: HttpRequest) -> HttpResponse:
    """The one answer for no form, and for a members' form to a visitor who
    is not a signed-in member: alike, and counted alike as a miss."""
    if isinstance(limits.miss(request), Throttled):
        message = "Too many requests for unknown forms from your address."
        return _refused(request, 429, message)
    sign_in = ""
    if not request.user.is_authenticated:
        query = urlencode({"next": request.get_full_path()}, safe="/")
        sign_in = f"{resolve_url(settings.LOGIN_URL)}?{query}"
    return _refused(request, 404, "There is no form at this address.", sign_in=sign_in)


@requires(get=rights.PUBLIC, post=rights.PUBLIC)
@csrf_exempt  # checked in _submit, after the size (see the module's docstring)
@ensure_csrf_cookie
def form_page(request: HttpRequest, slug: str) -> HttpResponse:
    flow = Flow.objects.form_page(slug)
    form = form_settings(flow.nodes) if flow is not None else None
    if form is None or not _may_see(request, flow, form):
        return _no_form(request)
    if request.method == "POST":
        return _submit(request, flow, form)
    return _page(request, flow, form)
