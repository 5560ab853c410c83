"""The page at a waiting run's resume link, and what a person sends from it.

The wait node chose what the page shows (its context, rendered when the run
started waiting and kept in `wait_state["page"]`) and what it asks (fields
of the form page's kinds, and a comment). The page's answer becomes the wait
node's output: `{approved, decision, values, comment, decided_by, body,
query, received_at}`, `decided_by` naming the signed-in person, if any.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from core.http.errors import PayloadTooLarge
from core.markdown import render_markdown
from flows.files import RunFiles
from flows.forms.fields import clean
from flows.models import FlowRun
from webhooks.form_submission import field_rows, has_files, store_uploads

PAGE_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
MAX_COMMENT = 5000


def page_of(run: FlowRun) -> dict:
    """What the wait asked for when it parked: {context, fields, ask_comment}."""
    return (run.wait_state or {}).get("page") or {}


def is_waiting_here(run: FlowRun, node_id: str) -> bool:
    state = run.wait_state or {}
    return run.status == FlowRun.Status.WAITING and state.get("node_id") == node_id


def open_until(run: FlowRun):
    wake_at = (run.wait_state or {}).get("wake_at")
    return parse_datetime(wake_at) if wake_at else None


def expired(run: FlowRun, node_id: str) -> bool:
    """Whether the link's time ran out (rather than someone answering)."""
    if is_waiting_here(run, node_id):
        until = open_until(run)
        return until is not None and until < timezone.now()
    error = run.error or {}
    timed_out = error.get("code") == "wait_timeout" and error.get("node_id") == node_id
    return timed_out or (run.results or {}).get(node_id) == {"timed_out": True}


def node_name(run: FlowRun, node_id: str) -> str:
    for node in run.flow.nodes:
        if isinstance(node, dict) and node.get("id") == node_id:
            return node.get("name") or node_id
    return node_id


def page_context(run: FlowRun, node_id: str, **extra) -> dict:
    """The template's context for `webhooks/resume.html`."""
    page = page_of(run)
    fields = page.get("fields", [])
    waiting = is_waiting_here(run, node_id)
    return {
        "run": run,
        "node_name": node_name(run, node_id),
        "waiting": waiting and not expired(run, node_id),
        "expired": expired(run, node_id),
        "open_until": open_until(run),
        "is_form": (run.wait_state or {}).get("mode") == "form",
        "context": [
            {"label": row["label"], "html": render_markdown(row["value"])}
            for row in page.get("context", [])
        ],
        "rows": field_rows(fields),
        "multipart": has_files(fields),
        "ask_comment": page.get("ask_comment", False),
        **extra,
    }


def decided_by(request: HttpRequest) -> dict | None:
    user = request.user
    if not user.is_authenticated:
        return None
    return {"id": str(user.pk), "username": user.get_username()}


def check_size(request: HttpRequest) -> None:
    """413 before the page's body is read (a file field makes it large)."""
    declared = request.META.get("CONTENT_LENGTH") or "0"
    limit = settings.WEBHOOK_MAX_BODY_BYTES
    if not declared.isdigit() or int(declared) > limit:
        raise PayloadTooLarge(
            f"The request body is larger than {limit} bytes.", details={"limit": limit}
        )


def page_answer(request: HttpRequest, run: FlowRun) -> tuple[dict, dict]:
    """The wait node's output from the page's POST, and the errors by field
    name (then nothing is resumed)."""
    fields = page_of(run).get("fields", [])
    values, errors = clean(fields, request.POST, request.FILES)
    comment = request.POST.get("comment", "").strip()
    if len(comment) > MAX_COMMENT:
        errors["comment"] = f"At most {MAX_COMMENT} characters, please."
    if not errors:
        errors = store_uploads(values, RunFiles(run.flow.workspace_id, run=run))
    said = request.POST.get("approved", "true").lower()
    approved = said != "false"
    answer = {
        "approved": approved,
        "decision": "approved" if approved else "rejected",
        "values": values,
        "comment": comment or None,
        "decided_by": decided_by(request),
        "body": {
            key: request.POST.get(key)
            for key in request.POST
            if key != "csrfmiddlewaretoken"
        },
        "query": {key: request.GET.get(key) for key in request.GET},
        "received_at": timezone.now().isoformat(),
    }
    return answer, errors
