"""Server-rendered pages for flows and runs. Data changes go through the API."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.workspaces.access import (
    can,
    role_of,
    workspace_ids_where,
)
from accounts.workspaces.current import current_membership, memberships_of
from accounts.workspaces.roles import (
    FLOWS_EDIT,
    MEMBERS_MANAGE,
    RUNS_DATA,
    RUNS_START,
    grants,
)
from core.http.errors import ValidationFailed
from core.pretty import pretty_json
from core.redact import redact_shapes
from flows.api.run_filters import FILTER_NAMES, apply_run_filters, parse_run_filters
from flows.app_actions.catalogue import palette_apps, preselect_credentials
from flows.credentials.kinds_api import kinds_answer
from flows.credentials.oauth2 import views as oauth2_views
from flows.credentials.serializers import CredentialSerializer
from flows.engine.again import RETRYABLE, REUSED_LOG
from flows.engine.waits import wait_of
from flows.files import files_in
from flows.models import Credential, Flow, FlowRun
from flows.nodes import NODE_KINDS
from flows.run_pages import paginator_for
from flows.run_sample import run_sample
from flows.run_stats import RANGES

RUNS_PER_PAGE = 25
# A {{ }} or condition expression runs inside the sandbox's own wrapper, so the
# stack frames of its error point into that wrapper, never at the user's text.
EXPRESSION_ERRORS = {"template_error", "expression_error"}


def readable_error(error: dict | None) -> str:
    """`code: message` for people; expression errors lose the sandbox's frames."""
    if not error:
        return ""
    message = str(error.get("message", ""))
    if error.get("code") in EXPRESSION_ERRORS:
        message = without_stack_frames(message)
    return f"{error.get('code')}: {message}"


def without_stack_frames(message: str) -> str:
    """`message` without its indented `at ...` lines, in one pass over it.

    A regular expression (`^\\s+at .*$` with MULTILINE) did this before, but
    `\\s` crosses line ends, so every one of n blank lines rescanned all those
    after it: a thrown message of blank lines made the run page quadratic.
    """
    kept = [
        line
        for line in message.split("\n")
        if not (line[:1].isspace() and line.lstrip().startswith("at "))
    ]
    return "\n".join(kept).strip()


CALLED_RUNS_SHOWN = 50


def node_kinds_for_palette(apps: list[dict] = ()) -> list[dict]:
    """The registry as the builder sees it: one entry per node kind, with the
    inspector's fields and a new node's `data` (the builder knows no kind itself).
    The app_action kind carries `apps` (palette_apps), by slug."""
    return [
        {
            "type": kind.type,
            "label": kind.label,
            "description": kind.description,
            "is_trigger": kind.is_trigger,
            "output_handles": list(kind.output_handles),
            **({"handles_from": kind.handles_from} if kind.handles_from else {}),
            **({"imports_curl": True} if kind.imports_curl else {}),
            "fields": [field.as_json() for field in kind.form_fields],
            "default_data": kind.default_data,
            **(
                {"apps": {app["slug"]: app for app in apps}}
                if kind.type == "app_action"
                else {}
            ),
        }
        for kind in NODE_KINDS.values()
    ]


@login_required
def flow_list(request: HttpRequest) -> HttpResponse:
    """The current workspace's flows (the header's switcher) with each one's
    latest run (two subqueries, one query)."""
    current = current_membership(request, memberships_of(request))
    latest = FlowRun.objects.filter(flow=OuterRef("pk")).order_by("-created_at")
    flows = Flow.objects.for_user(request.user).filter(
        workspace_id=current.workspace_id if current else None
    )
    flows = flows.annotate(
        last_run_status=Subquery(latest.values("status")[:1]),
        last_run_at=Subquery(latest.values("created_at")[:1]),
    )
    return render(
        request, "flows/list.html", {"flows": flows, "current_membership": current}
    )


@login_required
def builder(request: HttpRequest, flow_id) -> HttpResponse:
    flow = get_object_or_404(Flow.objects.for_user(request.user), pk=flow_id)
    role = role_of(request.user, flow.workspace_id)
    reads_run_data = grants(role, RUNS_DATA)
    flow_data = {
        "id": str(flow.id),
        "name": flow.name,
        "nodes": flow.nodes,
        "edges": flow.edges,
        "version": flow.version,
        "webhook_url": flow.webhook_url,
        "webhook_enabled": flow.webhook_enabled,
        "webhook_signed": bool(flow.webhook_secret),
        # Pins are copies of run outputs: only for a role that reads run data.
        "pins": flow.pins if reads_run_data else {},
        # Re-run and retry buttons under a run (the API refuses anyway).
        "may_run": grants(role, RUNS_START),
        "may_edit": grants(role, FLOWS_EDIT),
        "role": role,
    }
    apps = palette_apps()
    # One query: the workspace's credentials, for a new app action's default.
    preselect_credentials(
        apps,
        Credential.objects.filter(workspace_id=flow.workspace_id).values_list(
            "id", "name", "kind"
        ),
    )
    return render(
        request,
        "flows/builder.html",
        {
            "flow": flow,
            "flow_data": flow_data,
            # The buttons a role cannot use are hidden; the API refuses anyway.
            "may_edit_flow": grants(role, FLOWS_EDIT),
            "may_run_flow": grants(role, RUNS_START),
            "flow_role": role,
            "run_sample": pretty_json(run_sample(flow, reads_run_data=reads_run_data)),
            # The header states the role in the flow's own workspace, not in
            # the current one: a link opened from another workspace must not
            # show "owner" above a flow the user only views.
            **flow_workspace_header(request, flow, role),
            "node_kinds": node_kinds_for_palette(apps),
            "apps": apps,
            "response_modes": Flow.ResponseMode.choices,
            "error_flow_choices": Flow.objects.for_user(request.user)
            .exclude(pk=flow.pk)
            .order_by("name")
            .only("id", "name"),
            "run_statuses": FlowRun.Status.choices,
            "run_triggers": FlowRun.Trigger.choices,
        },
    )


def flow_workspace_header(request: HttpRequest, flow: Flow, role: str | None) -> dict:
    """The header's workspace values (accounts/workspaces/current.py) for the
    flow's workspace, overriding the context processor's current ones."""
    membership = next(
        (m for m in memberships_of(request) if m.workspace_id == flow.workspace_id),
        None,
    )
    return {
        "current_membership": membership,
        "may_edit_flows": grants(role, FLOWS_EDIT),
        "may_run_flows": grants(role, RUNS_START),
        "may_manage_members": grants(role, MEMBERS_MANAGE),
    }


@login_required
def run_detail(request: HttpRequest, run_id) -> HttpResponse:
    """One run's steps as a timeline; runs of other users' flows are 404.

    Without `runs.data` (a viewer) the page shows that the run ran and how it
    ended, never what it carried: no input, step output, logs or step errors,
    as the API's HIDDEN_RUN_DATA."""
    run = get_object_or_404(
        FlowRun.objects.for_user(request.user).select_related("flow"), pk=run_id
    )
    shows_data = can(request.user, run.flow.workspace_id, RUNS_DATA)
    steps = list(run.steps.all())
    for step in steps:
        if not shows_data:
            step.output, step.logs, step.error, step.attempts = None, [], None, []
        step.output_json = pretty_json(step.output)
        # Its files as download links (their markers stay in the JSON).
        step.files = [marker["$file"] for marker in files_in(step.output)]
        # A retry's copy of a step of the run it retried (flows/engine/again.py).
        step.reused = bool(run.retry_of_id and step.logs) and str(
            step.logs[-1]
        ).startswith(REUSED_LOG.split("{", 1)[0])
        step.error_text = readable_error(step.error)
    names = {step.node_id: step.node_name for step in steps}
    names.update(
        (node.get("id"), node.get("name"))
        for node in run.flow.nodes
        if isinstance(node, dict) and node.get("id") not in names
    )
    failed_node = ""
    if run.error and run.error.get("node_id"):
        failed_node = names.get(run.error["node_id"]) or run.error["node_id"]
    may_start = can(request.user, run.flow.workspace_id, RUNS_START)
    retryable = run.status in RETRYABLE
    wait = wait_of(run)
    if wait and not may_start:
        wait["resume_url"] = None  # the link resumes the run: runners only
    if wait:
        wait["node_name"] = names.get(wait["node_id"]) or wait["node_id"]
    return render(
        request,
        "flows/run_detail.html",
        {
            "run": run,
            "flow": run.flow,
            "steps": steps,
            "shows_data": shows_data,
            "may_start": may_start,  # Cancel (and resume) need runs.start
            "input_json": pretty_json(redact_shapes(run.input)) if shows_data else "",
            "error_runs": run.error_runs.select_related("flow").order_by("created_at"),
            # A for_each may start a thousand: the page lists the first ones.
            "called_runs": run.called_runs.select_related("flow").order_by(
                "created_at"
            )[:CALLED_RUNS_SHOWN],
            "called_count": run.called_runs.count(),
            "retryable": retryable,
            "retries": run.retries.order_by("created_at") if retryable else (),
            "failed_node": failed_node,
            "error_text": readable_error(run.error),
            "wait": wait,
        },
    )


@login_required
def runs(request: HttpRequest) -> HttpResponse:
    """Every run of the user's flows, filtered and paged; the chart loads by API."""
    problem = ""
    runs = FlowRun.objects.for_user(request.user).listed()
    try:
        runs = apply_run_filters(runs, parse_run_filters(request.GET))
    except ValidationFailed as error:
        problem, runs = str(error.detail), runs.none()
    # Counted at most to a cap; a short first page is not counted at all.
    paginator = paginator_for(request.GET)(runs, RUNS_PER_PAGE)
    page = paginator.get_page(request.GET.get("page"))
    waiting = []
    for run in page.object_list:
        run.wait = wait_of(run)
        if run.wait:
            waiting.append(run)
    if waiting:  # one query, only for a page with waiting runs
        # A resume link resumes the run: only where the user may start runs.
        starts = {
            row["workspace_id"] for row in workspace_ids_where(request.user, RUNS_START)
        }
        for run in waiting:
            if run.flow.workspace_id not in starts:
                run.wait["resume_url"] = None
    kept = request.GET.copy()
    kept.pop("page", None)
    filtered = any(request.GET.get(name) for name in FILTER_NAMES)
    workspaces = memberships_of(request)
    starts_somewhere = any(grants(m.role, RUNS_START) for m in workspaces)
    return render(
        request,
        "flows/runs.html",
        {
            "page": page,
            "problem": problem,
            "filtered": filtered,
            "has_runs": filtered or page.paginator.count > 0,
            "query": kept.urlencode(),
            "values": {name: request.GET.get(name, "") for name in FILTER_NAMES},
            "statuses": FlowRun.Status.choices,
            "triggers": FlowRun.Trigger.choices,
            "ranges": list(RANGES),
            # The filters' choices: a user's flows by name, and workspaces
            # when there is more than one to tell apart.
            "flows": Flow.objects.for_user(request.user)
            .order_by("name")
            .values("id", "name"),
            "workspaces": workspaces if len(workspaces) > 1 else [],
            "may_retry": starts_somewhere,
        },
    )


@login_required
def credentials(request: HttpRequest) -> HttpResponse:
    """The user's credentials (never their values); changes go through the API."""
    data = CredentialSerializer(
        Credential.objects.for_user(request.user),
        many=True,
        context={"request": request},
    ).data
    return render(
        request,
        "credentials/list.html",
        {
            "credentials": data,
            "kinds": kinds_answer(),
            "oauth_redirect_uri": oauth2_views.redirect_uri(),
        },
    )
