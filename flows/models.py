"""Flows, their runs and each run's per-node steps."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import timedelta

from django.conf import settings
from django.db import connections, models, router, transaction
from django.urls import reverse
from django.utils import timezone


class FlowQuerySet(models.QuerySet):
    def for_user(self, user):
        """The only way views and the API reach flows; others' flows do not exist."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(owner=user)

    def webhook_target(self, pk: uuid.UUID) -> Flow | None:
        """The flow with this id if its webhook is enabled, else None.

        Loads only what a webhook and its run read; any other field loads on
        first access (one query). A hand-written SELECT through `raw()`, because
        this runs on every webhook and `get()` spends about 0.2 ms of CPU more
        compiling the query than `raw()` does (bench/README.md, "Webhook").
        """
        connection = connections[self.db]
        quote = connection.ops.quote_name
        fields = [Flow._meta.get_field(name) for name in Flow.WEBHOOK_FIELDS]
        sql = "SELECT {} FROM {} WHERE {} = %s AND {}".format(
            ", ".join(quote(field.column) for field in fields),
            quote(Flow._meta.db_table),
            quote(Flow._meta.pk.column),
            quote(Flow._meta.get_field("webhook_enabled").column),
        )
        params = [Flow._meta.pk.get_db_prep_value(pk, connection)]
        return next(iter(self.raw(sql, params)), None)


class Flow(models.Model):
    """A user's automation: a graph of nodes and edges, run by its webhook or by hand.

    `version` goes up by one on every saved change so that two editors cannot
    silently overwrite each other (the API's `If-Match`).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="flows"
    )
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
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = FlowQuerySet.as_manager()

    # What `Flow.objects.webhook_target` loads: the webhook's checks and the run.
    WEBHOOK_FIELDS = (
        "id",
        "owner",
        "version",
        "nodes",
        "edges",
        "webhook_enabled",
        "webhook_secret",
        "webhook_response_mode",
    )

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            # The flow list: one user's flows, newest first.
            models.Index(
                fields=["owner", "-created_at"], name="flow_owner_created_idx"
            ),
        ]

    def __str__(self):
        return self.name

    def get_absolute_url(self):
        return reverse("flows:builder", args=[self.id])

    @property
    def webhook_path(self) -> str:
        return f"/api/webhooks/{self.id}"

    @property
    def webhook_url(self) -> str:
        return settings.BASE_URL + self.webhook_path


class FlowRunQuerySet(models.QuerySet):
    def for_user(self, user):
        """Runs of the user's own flows only."""
        if not user.is_authenticated:
            return self.none()
        return self.filter(flow__owner=user)

    def lease_expired(self):
        """Queued or running runs whose executor stopped renewing the lease."""
        return self.filter(
            status__in=[FlowRun.Status.QUEUED, FlowRun.Status.RUNNING],
            lease_expires_at__lt=timezone.now(),
        )

    def start(
        self, flow: Flow, trigger: str, input: dict, request_meta: dict
    ) -> FlowRun:
        """A new run of `flow`, stored already `running` (one INSERT).

        Runs start in the caller's thread the moment they are created, so they
        are never stored `queued` first: that was a second write and a second
        commit per run for a state nobody could observe for long. The INSERT is
        written by hand (no `save()`, so no signals; nothing listens to them):
        `create()` spent about 0.2 ms of CPU compiling it, more than the
        database spent running it (bench/README.md, "Webhook").
        """
        now = timezone.now()
        run = FlowRun(
            flow=flow,
            flow_version=flow.version,
            trigger=trigger,
            status=FlowRun.Status.RUNNING,
            input=input,
            request_meta=request_meta,
            created_at=now,
            started_at=now,
            lease_expires_at=now + timedelta(seconds=settings.RUN_LEASE_SECONDS),
            attempts=1,
        )
        db = self._db or router.db_for_write(FlowRun)
        connection = connections[db]
        quote = connection.ops.quote_name
        fields = FlowRun._meta.concrete_fields
        sql = "INSERT INTO {} ({}) VALUES ({})".format(
            quote(FlowRun._meta.db_table),
            ", ".join(quote(field.column) for field in fields),
            ", ".join(["%s"] * len(fields)),
        )
        params = [
            field.get_db_prep_save(getattr(run, field.attname), connection)
            for field in fields
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
        run._state.adding = False
        run._state.db = db
        return run

    def mark_interrupted(self) -> int:
        """End these runs `interrupted`; returns how many."""
        now = timezone.now()
        return self.update(
            status=FlowRun.Status.INTERRUPTED,
            lease_expires_at=None,
            finished_at=now,
            error={
                "node_id": None,
                "code": "interrupted",
                "message": "The run was interrupted (the server stopped mid-run).",
            },
        )


class FlowRun(models.Model):
    """One execution of a flow: what started it, its input, its steps and its result."""

    class Trigger(models.TextChoices):
        MANUAL = "manual"
        WEBHOOK = "webhook"
        AGENT = "agent"
        SCHEDULE = "schedule"

    class Status(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        TIMED_OUT = "timed_out"
        CANCELLED = "cancelled"
        INTERRUPTED = "interrupted"

    FINISHED = (
        Status.SUCCEEDED,
        Status.FAILED,
        Status.TIMED_OUT,
        Status.CANCELLED,
        Status.INTERRUPTED,
    )
    # What `finish` writes.
    FINAL_FIELDS = (
        "lease_expires_at",
        "status",
        "results",
        "error",
        "response",
        "finished_at",
        "duration_ms",
    )

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    flow = models.ForeignKey(Flow, on_delete=models.CASCADE, related_name="runs")
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
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)
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
        ]

    def __str__(self):
        return f"{self.flow} · {self.status} · {self.created_at:%Y-%m-%d %H:%M:%S}"

    @property
    def success(self) -> bool:
        return self.status == self.Status.SUCCEEDED

    def finish(
        self,
        status: str,
        results: dict,
        error: dict | None,
        duration_ms: float,
        *,
        steps: Sequence[dict] = (),
    ) -> bool:
        """Store the final state and the run's last step rows, atomically.

        False when there was no row to update: the run was deleted with its
        flow, or this executor no longer holds it (see `_final_update`).

        `response` was set on the instance by its node. On PostgreSQL this is one
        statement (the steps' INSERT in the UPDATE's `WITH` clause): one round
        trip and one commit instead of four round trips (BEGIN, INSERT, UPDATE,
        COMMIT). Elsewhere it is a transaction of the two. The UPDATE is
        written by hand: `save(update_fields=...)` spent more CPU compiling it
        than the database spent running it (bench/README.md, "Webhook").
        """
        self.status = status
        self.results = results
        self.error = error
        self.finished_at = timezone.now()
        self.duration_ms = duration_ms
        self.lease_expires_at = None
        connection = connections[self._state.db or router.db_for_write(FlowRun)]
        step_rows = RunStep.objects.using(connection.alias)
        sql, params = self._final_update(connection)
        if steps and connection.vendor == "postgresql" and len(steps) <= 5000:
            # At 12 parameters a row, 5000 rows stay below the 65535 parameters a
            # statement may have when psycopg binds them on the server; a bigger
            # batch (a flow past FLOW_MAX_NODES, saved through the admin) takes
            # the transaction below.
            steps_sql, steps_params = step_rows.insert_statement(steps)
            sql = f"WITH steps AS ({steps_sql}) {sql}"
            params = steps_params + params
        elif steps:
            with transaction.atomic(using=connection.alias):
                step_rows.insert_rows(steps)
                with connection.cursor() as cursor:
                    cursor.execute(sql, params)
                    return cursor.rowcount > 0
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount > 0

    def _final_update(self, connection) -> tuple[str, list]:
        quote = connection.ops.quote_name
        fields = [self._meta.get_field(name) for name in self.FINAL_FIELDS]
        pk = self._meta.pk
        # Fenced: only the executor that holds the run may end it. The
        # supervisor may have interrupted it (lease expired) or handed it to
        # another worker (`attempts` went up) meanwhile.
        sql = "UPDATE {} SET {} WHERE {} = %s AND {} = %s AND {} = %s".format(
            quote(self._meta.db_table),
            ", ".join(f"{quote(field.column)} = %s" for field in fields),
            quote(pk.column),
            quote("attempts"),
            quote("status"),
        )
        params = [
            field.get_db_prep_save(getattr(self, field.attname), connection)
            for field in fields
        ]
        params.append(pk.get_db_prep_value(self.pk, connection))
        params += [self.attempts, FlowRun.Status.RUNNING]
        return sql, params

    def request_cancel(self) -> None:
        """Ask the run to stop: a queued one is `cancelled` at once, a running
        one stops before its next node (its executor sees the flag within a
        lease tick, flows/engine/lease.py). A finished run is left as it is."""
        runs = FlowRun.objects.filter(pk=self.pk)
        runs.filter(status=FlowRun.Status.QUEUED).update(
            status=FlowRun.Status.CANCELLED,
            cancel_requested=True,
            finished_at=timezone.now(),
            lease_expires_at=None,
            error={
                "node_id": None,
                "code": "cancelled",
                "message": "The run was cancelled before it started.",
            },
        )
        runs.filter(status=FlowRun.Status.RUNNING).update(cancel_requested=True)

    def as_result(self) -> dict:
        """The run result of DESIGN.md section 4 (duration in milliseconds)."""
        return {
            "success": self.success,
            "run_id": str(self.id),
            "status": self.status,
            "results": self.results,
            "duration": self.duration_ms,
            "error": self.error,
        }


class RunStepQuerySet(models.QuerySet):
    """Step rows are written by hand: `bulk_create` compiles every row through
    the ORM, about 100 µs a row, and the engine writes a row per node."""

    def insert_rows(self, rows: list[dict]) -> None:
        """Insert step rows (dicts keyed by field attname) in one `executemany`."""
        if not rows:
            return
        head, row_sql, prepare = self._insert_parts()
        with connections[self.db].cursor() as cursor:
            cursor.executemany(head + row_sql, [prepare(row) for row in rows])

    def insert_statement(self, rows: list[dict]) -> tuple[str, list]:
        """One multi-row `INSERT` of these step rows: its SQL and parameters."""
        head, row_sql, prepare = self._insert_parts()
        params = [value for row in rows for value in prepare(row)]
        return head + ", ".join([row_sql] * len(rows)), params

    def _insert_parts(self):
        """`INSERT INTO ... VALUES `, one row's placeholders, and a function
        from a row to its prepared values."""
        connection = connections[self.db]
        fields = _step_fields()
        quote = connection.ops.quote_name
        head = "INSERT INTO {} ({}) VALUES ".format(
            quote(RunStep._meta.db_table),
            ", ".join(quote(field.column) for field in fields),
        )
        row_sql = "({})".format(", ".join(["%s"] * len(fields)))
        preparers = [
            (field.attname, _preparer(field, connection), field.get_default())
            for field in fields
        ]

        def prepare(row: dict) -> list:
            return [
                prepare(row.get(name, default)) for name, prepare, default in preparers
            ]

        return head, row_sql, prepare


def _step_fields() -> list:
    return [field for field in RunStep._meta.concrete_fields if not field.primary_key]


def _preparer(field, connection):
    """The cheapest correct conversion of one field's values for the database."""
    if isinstance(field, models.JSONField):
        adapt_json, encoder = connection.ops.adapt_json_value, field.encoder
        return lambda value: None if value is None else adapt_json(value, encoder)
    if isinstance(field, models.DateTimeField):
        adapt_datetime = connection.ops.adapt_datetimefield_value
        return lambda value: None if value is None else adapt_datetime(value)
    if isinstance(field, models.ForeignKey):
        return lambda value: field.get_db_prep_save(value, connection)
    return lambda value: value


class RunStep(models.Model):
    """One node's part in a run: its status, output, error, console logs and timing."""

    class Status(models.TextChoices):
        """Steps are written once their node has ended, so only final states."""

        SUCCEEDED = "succeeded"
        FAILED = "failed"
        SKIPPED = "skipped"

    # No index of its own: the (run, node_id) constraint's index leads with run,
    # and serves a run's steps (the run page) and the cascade on delete.
    run = models.ForeignKey(
        FlowRun, on_delete=models.CASCADE, related_name="steps", db_index=False
    )
    position = models.PositiveIntegerField(
        help_text="Order of execution within the run."
    )
    node_id = models.CharField(max_length=100)
    node_type = models.CharField(max_length=32)
    node_name = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices)
    handle = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text="The output a branching node left through; a resumed run "
        "fires the same edges.",
    )
    output = models.JSONField(null=True, blank=True)
    error = models.JSONField(null=True, blank=True)
    logs = models.JSONField(default=list, blank=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.FloatField(null=True, blank=True)

    objects = RunStepQuerySet.as_manager()

    class Meta:
        ordering = ["run", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["run", "node_id"], name="runstep_unique_node_per_run"
            ),
        ]

    def __str__(self):
        return f"{self.node_id} · {self.status}"
