"""Flows, their runs and each run's per-node steps."""

from __future__ import annotations

import uuid

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.fields.json import KT
from django.urls import reverse
from django.utils import timezone

from accounts.workspaces.owned import WorkspaceOwned
from flows.credentials.usage import check_owned
from flows.forms.password import seal
from flows.graph import validate_graph
from flows.nodes.form import form_slug
from flows.querysets import FlowQuerySet, FlowRunQuerySet
from flows.refs import check_called_flows


class Flow(WorkspaceOwned):
    """A user's automation: a graph of nodes and edges, run by its webhook or by hand.

    `version` goes up by one on every saved change so that two editors cannot
    silently overwrite each other (the API's `If-Match`).
    """

    name = models.CharField(max_length=200)
    description = models.TextField(
        blank=True,
        help_text="What the flow does; agents see it when the flow is a tool.",
    )
    input_schema = models.JSONField(
        default=dict,
        blank=True,
        help_text="JSON Schema of the flow's input, shown to agents using the flow.",
    )
    nodes = models.JSONField(default=list, blank=True)
    edges = models.JSONField(default=list, blank=True)
    version = models.PositiveIntegerField(default=1)
    webhook_enabled = models.BooleanField(default=True)
    webhook_secret = models.CharField(
        max_length=200,
        blank=True,
        help_text="Signing secret for incoming webhooks; empty means unsigned.",
    )

    class SignatureScheme(models.TextChoices):
        """How a sender signs its deliveries (webhooks/provider_signatures.py)."""

        STANDARD = "standard", "Standard Webhooks"
        GITHUB = "github", "GitHub (X-Hub-Signature-256)"
        STRIPE = "stripe", "Stripe (Stripe-Signature)"
        SLACK = "slack", "Slack (X-Slack-Signature)"

    webhook_signature_scheme = models.CharField(
        max_length=16,
        choices=SignatureScheme.choices,
        default=SignatureScheme.STANDARD,
        help_text="How the webhook's deliveries are signed with the secret.",
    )

    class ResponseMode(models.TextChoices):
        COMPLETED = "completed", "When the flow completes"
        IMMEDIATELY = "immediately", "Immediately (202, run on a worker)"

    webhook_response_mode = models.CharField(
        max_length=16,
        choices=ResponseMode.choices,
        default=ResponseMode.COMPLETED,
        help_text="When the webhook answers; a request may ask for "
        "`Prefer: respond-async` either way.",
    )
    mcp_offered = models.BooleanField(
        default=False,
        help_text="Offer over MCP: /api/mcp lists and runs this flow as a tool "
        "(it needs an input schema too).",
    )
    # Kept by save(): the scheduler reads only flows with a schedule trigger, and
    # each one's last look (flows/schedules/scheduler.py).
    has_schedule = models.BooleanField(default=False, db_index=True, editable=False)
    schedule_checked_at = models.DateTimeField(null=True, blank=True, editable=False)
    pins = models.JSONField(
        default=dict,
        blank=True,
        help_text="Pinned outputs by node id, used by test runs from the builder "
        "only (flows/pins.py).",
    )
    error_flow = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="On failure, run this flow (one of the same workspace's, not this "
        "one) with trigger `error` and input {run_id, flow_id, node_id, error}.",
    )
    key = models.CharField(
        max_length=80,
        blank=True,
        help_text="Its file's name in a directory of flows (docs/git.md); blank "
        "until exported or imported there. Stays when the flow is renamed.",
    )
    # Kept by save() from the form node's slug: the form page's one lookup.
    form_slug = models.SlugField(
        max_length=60, null=True, blank=True, unique=True, editable=False
    )
    # The form page's password, hashed; taken out of the form node by save()
    # (flows/forms/password.py), so no version, export or git file holds it.
    form_password = models.CharField(max_length=200, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FlowQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The flow list: one workspace's flows, newest first.
            models.Index(
                fields=["workspace", "-created_at"], name="flow_workspace_created_idx"
            ),
        ]
        constraints = [
            # A directory of flow files maps to one workspace's flows by key.
            models.UniqueConstraint(
                fields=["workspace", "key"],
                condition=~models.Q(key=""),
                name="flow_key_unique_in_workspace",
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        self.has_schedule = any(
            isinstance(node, dict) and node.get("type") == "schedule"
            for node in self.nodes or []
        )
        if not self.has_schedule:
            self.schedule_checked_at = None  # a schedule added later starts afresh
        self.form_slug = self.free_form_slug()
        seal(self)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("flows:builder", args=[self.id])

    def clean(self):
        """Refuse a broken graph (the admin's form) with the API's messages."""
        errors = validate_graph(self.nodes, self.edges)
        if not errors and self.workspace_id is not None:
            check_called_flows(self.nodes, self.workspace_id, errors)
            check_owned(self.nodes, self.workspace_id, errors)
        if errors:
            raise ValidationError(errors.by_field())

    def free_form_slug(self) -> str | None:
        """The form node's slug unless another flow holds it (a restore or a
        git import may bring one back that the API's check never saw; the
        flow then has no page, and its warnings say why). One query when
        the flow has a form with a slug."""
        slug = form_slug(self.nodes)
        if slug is None or slug == self.form_slug:
            return slug
        taken = Flow.objects.filter(form_slug=slug).exclude(pk=self.pk).exists()
        return None if taken else slug

    @property
    def webhook_path(self) -> str:
        return f"/api/webhooks/{self.id}"

    @property
    def webhook_url(self) -> str:
        return settings.BASE_URL + self.webhook_path


class FlowRun(models.Model):
    """One execution of a flow: what started it, its input, its steps and its result."""

    class Trigger(models.TextChoices):
        MANUAL = "manual"
        WEBHOOK = "webhook"
        AGENT = "agent"
        SCHEDULE = "schedule"
        ERROR = "error"
        CALL = "call"  # started by a call_flow or for_each node of another run
        MCP = "mcp"  # an MCP client called the flow as a tool (/api/mcp)
        FORM = "form"  # a visitor submitted the flow's form page (/f/<slug>)

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        TIMED_OUT = "timed_out"
        CANCELLED = "cancelled"
        INTERRUPTED = "interrupted"
        # Parked at a wait node: holds no worker and no thread (flows/engine/waits.py).
        WAITING = "waiting"

    UNFINISHED = (Status.QUEUED, Status.RUNNING, Status.WAITING)

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    # No foreign key in the database: its check took a share lock on the flow's
    # row for every run stored, and one flow's concurrent 202s queued on it.
    # Deleting a flow still deletes its runs (Django's cascade); a run stored
    # as its flow was deleted is cleaned up (flows/engine/orphans.py). No index
    # of its own either: run_flow_created_idx starts with the flow.
    flow = models.ForeignKey(
        Flow, on_delete=models.CASCADE, related_name="runs",
        db_constraint=False, db_index=False,
    )  # fmt: skip
    flow_version = models.PositiveIntegerField(default=1)
    trigger = models.CharField(max_length=16, choices=Trigger.choices)
    status = models.CharField(
        max_length=16, choices=Status.choices, default=Status.QUEUED
    )
    input = models.JSONField(default=dict, blank=True)
    results = models.JSONField(
        default=dict, blank=True, help_text="Each executed node's output by node id."
    )
    error = models.JSONField(
        null=True, blank=True, help_text="{node_id, code, message} when the run failed."
    )
    response = models.JSONField(
        null=True,
        blank=True,
        help_text="{status, headers, body} set by a response node, for the webhook.",
    )
    request_meta = models.JSONField(
        default=dict,
        blank=True,
        help_text="Safe facts about the triggering HTTP request (never cookies).",
    )
    error_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL,
        related_name="error_runs",
        help_text="For a run of an error flow: the failed run it handles.",
    )  # fmt: skip
    # Its index serves a run page's "Retried by" and retry-failed's "not retried yet".
    retry_of = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL,
        related_name="retries", help_text="The failed run this one retried.",
    )  # fmt: skip
    # Its index serves a run page's list of the runs it called.
    called_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL,
        related_name="called_runs",
        help_text="The run whose call_flow or for_each node started this one.",
    )  # fmt: skip
    retry_state = models.JSONField(
        null=True,
        blank=True,
        help_text="A background run queued again to retry a node later: "
        "{node_id, attempts} (the attempts made so far).",
    )
    wait_state = models.JSONField(
        null=True,
        blank=True,
        help_text="A run parked at a wait node: {node_id, mode, wake_at}, "
        "and once woken `resumed` (what the node outputs).",
    )
    delivery_id = models.CharField(
        max_length=256,
        blank=True,
        default="",
        help_text="The webhook delivery's id (webhook-id or Idempotency-Key); "
        "one run per id and flow.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
    pinned = models.BooleanField(
        default=False, help_text="Pinned runs are never deleted by retention."
    )
    background = models.BooleanField(
        default=False,
        help_text="Executed by a worker (resumable), not by the request that "
        "started it.",
    )
    lease_expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Its executor renews this while the run goes on; past it, the "
        "supervisor resumes or interrupts the run.",
    )
    run_after = models.DateTimeField(
        null=True,
        blank=True,
        help_text="A queued run is not taken before this (a node's retry waits).",
    )
    attempts = models.PositiveIntegerField(
        default=0, help_text="How many executors have taken the run (resumes + 1)."
    )
    cancel_requested = models.BooleanField(default=False)

    objects = FlowRunQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # A flow's run history, newest first.
            models.Index(fields=["flow", "-created_at"], name="run_flow_created_idx"),
            # The supervisor: queued or running runs whose lease has expired.
            models.Index(
                fields=["status", "lease_expires_at"], name="run_status_lease_idx"
            ),
            # Retention's age cut-off across all flows, and the admin index's
            # runs of the last hour.
            models.Index(fields=["created_at"], name="run_created_idx"),
            # Called runs under one root run: FLOW_CALL_MAX_CHILDREN (calls.py).
            models.Index(
                KT("request_meta__call_root"),
                condition=models.Q(trigger="call"),
                name="run_call_root_idx",
            ),
        ]
        constraints = [
            # One run per delivery of a flow's webhook, whichever process or
            # machine receives it; its index also finds the run of a repeat.
            models.UniqueConstraint(
                fields=["flow", "delivery_id"],
                condition=~models.Q(delivery_id=""),
                name="run_unique_delivery_per_flow",
            ),
        ]

    def __str__(self):
        try:
            flow = self.flow
        except Flow.DoesNotExist:  # stored as it was deleted: flows/engine/orphans.py
            flow = "(deleted flow)"
        return f"{flow} · {self.status} · {self.created_at:%Y-%m-%d %H:%M:%S}"

    @property
    def success(self) -> bool:
        return self.status == self.Status.SUCCEEDED

    def request_cancel(self) -> None:
        """Ask the run to stop: a queued or waiting one is `cancelled` at once,
        a running one stops before its next node (its executor sees the flag
        within a lease tick, flows/engine/lease.py). A finished run is left as
        it is."""
        runs = FlowRun.objects.filter(pk=self.pk)
        for status, when in [
            ("queued", "before it started"),
            ("waiting", "while it waited"),
        ]:
            runs.filter(status=status).update(
                status=FlowRun.Status.CANCELLED,
                cancel_requested=True,
                finished_at=timezone.now(),
                lease_expires_at=None,
                error={
                    "node_id": None,
                    "code": "cancelled",
                    "message": f"The run was cancelled {when}.",
                },
            )
        runs.filter(status=FlowRun.Status.RUNNING).update(cancel_requested=True)

    def as_result(self) -> dict:
        """The run result of docs/api.md, section 3 (duration in milliseconds)."""
        return {
            "success": self.success,
            "run_id": str(self.id),
            "status": self.status,
            "results": self.results,
            "duration": self.duration_ms,
            "error": self.error,
        }


# Run steps, credentials, flow versions and run files live in modules of
# their own; importing their models here registers them with the flows app.
from flows.allowed_addresses import AllowedAddress  # noqa: E402, F401
from flows.app_actions.models import UploadedApp  # noqa: E402, F401
from flows.credentials.models import Credential  # noqa: E402, F401
from flows.credentials.oauth2.state import OAuthState  # noqa: E402, F401
from flows.files.models import RunFile  # noqa: E402, F401
from flows.history.models import FlowVersion  # noqa: E402, F401
from flows.run_steps import RunStep  # noqa: E402, F401
