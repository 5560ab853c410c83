"""Run persistence: how runs and their steps reach the database.

Every hand-written SQL statement of the app lives here, built by `Table`. They
are hand-written because they run on every webhook and every run, and the ORM
spent more CPU compiling each of them (0.2-0.4 ms, about 100 µs a row for
`bulk_create`) than the database spent running it (bench/README.md,
"Webhook"). A run costs two statements: `start_run`'s INSERT and
`finish_run`'s final UPDATE, which on PostgreSQL carries the last step rows in
its `WITH` clause. Writes that are not on the hot path use the ORM.

Public functions: `start_run`, `finish_run`, `write_steps`, `mark_unstorable`,
`mark_interrupted`, `webhook_target`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta

from django.conf import settings
from django.db import connections, models, router, transaction
from django.utils import timezone

from flows import metrics
from flows.models import Flow, FlowRun, RunStep

# The most parameters one statement may carry: PostgreSQL's wire protocol
# counts them in 16 bits (psycopg binds on the server).
MAX_PARAMETERS = 65535

# What `finish_run` writes, and what `webhook_target` loads: the webhook's
# checks and the run (any other field loads on first access, one query).
FINAL_FIELDS = (
    "status",
    "results",
    "error",
    "response",
    "finished_at",
    "duration_ms",
    "lease_expires_at",
)
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

INTERRUPTED = {
    "node_id": None,
    "code": "interrupted",
    "message": "The run was interrupted (its process stopped, or the database "
    "was unreachable, mid-run).",
}
UNSTORABLE = {
    "node_id": None,
    "code": "unstorable_output",
    "message": "The run ended but its results could not be stored, so they "
    "were dropped. The error has been logged.",
}


class Table:
    """One model's table and some of its columns, on one database connection.

    The only place SQL text is built: names quoted by the backend, and each
    value prepared by the cheapest correct conversion for its field.
    """

    def __init__(self, model, names: tuple[str, ...] | None, connection):
        self.model = model
        self.connection = connection
        self.name, self.columns, self.pk_column, plan = _plan(model, names, connection)
        self.fields = [field for field, _, _ in plan]
        self._preparers = [
            (field.attname, _preparer(field, conversion, connection), default)
            for field, conversion, default in plan
        ]

    @classmethod
    def of(cls, model, names: tuple[str, ...] | None, using: str) -> Table:
        """`model`'s named fields (None: every concrete field but an auto key)."""
        return cls(model, names, connections[using])

    def rows_per_statement(self, reserved: int = 0) -> int:
        """How many rows of these columns one statement may carry beside
        `reserved` other parameters: 65535 // 12 = 5461 for step rows."""
        return (MAX_PARAMETERS - reserved) // len(self.fields)

    def values(self, row: dict) -> list:
        """A row (values by attname; a missing one takes its default), prepared."""
        return [
            prepare(row.get(name, default))
            for name, prepare, default in self._preparers
        ]

    def values_of(self, instance: models.Model) -> list:
        """An instance's values of these columns, prepared."""
        return [
            prepare(getattr(instance, name)) for name, prepare, _ in self._preparers
        ]

    def pk_value(self, pk) -> object:
        return self.model._meta.pk.get_db_prep_value(pk, self.connection)

    def insert(self, rows: int = 1) -> str:
        row = "({})".format(", ".join(["%s"] * len(self.columns)))
        return "INSERT INTO {} ({}) VALUES {}".format(
            self.name, ", ".join(self.columns), ", ".join([row] * rows)
        )

    def update_by_pk(self, condition: str = "") -> str:
        assignments = ", ".join(f"{column} = %s" for column in self.columns)
        where = f"{self.pk_column} = %s" + (f" AND {condition}" if condition else "")
        return f"UPDATE {self.name} SET {assignments} WHERE {where}"

    def select_by_pk(self, condition: str = "") -> str:
        where = f"{self.pk_column} = %s" + (f" AND {condition}" if condition else "")
        return f"SELECT {', '.join(self.columns)} FROM {self.name} WHERE {where}"

    def column(self, name: str) -> str:
        field = self.model._meta.get_field(name)
        return self.connection.ops.quote_name(field.column)


_PLANS: dict[tuple, tuple] = {}


def _plan(model, names: tuple[str, ...] | None, connection) -> tuple:
    """What does not change between calls: quoted names, and per field its
    conversion and the default a missing row value takes.

    Cached per backend (never per connection, which belongs to one thread)
    because it runs for every run. Defaults are taken once: step rows only
    default to constants (`[]`).
    """
    key = (model, names, connection.vendor)
    if key not in _PLANS:
        _PLANS[key] = _make_plan(model, names, connection.ops.quote_name)
    return _PLANS[key]


def _make_plan(model, names, quote: Callable) -> tuple:
    if names is None:
        fields = [
            field
            for field in model._meta.concrete_fields
            if not (field.primary_key and field.auto_created)
        ]
    else:
        fields = [model._meta.get_field(name) for name in names]
    plan = tuple(
        (
            field,
            _conversion(field),
            None if field.primary_key else field.get_default(),
        )
        for field in fields
    )
    columns = [quote(field.column) for field in fields]
    return quote(model._meta.db_table), columns, quote(model._meta.pk.column), plan


def _conversion(field: models.Field) -> str:
    if isinstance(field, models.JSONField):
        return "json"
    if isinstance(field, models.DateTimeField):
        return "datetime"
    if isinstance(field, models.CharField | models.IntegerField | models.FloatField):
        return "as_is"  # the driver takes these as they are
    return "field"


def _preparer(field: models.Field, conversion: str, connection) -> Callable:
    """The cheapest correct conversion of one field's values for the database."""
    if conversion == "json":
        adapt_json, encoder = connection.ops.adapt_json_value, field.encoder
        return lambda value: None if value is None else adapt_json(value, encoder)
    if conversion == "datetime":
        adapt_datetime = connection.ops.adapt_datetimefield_value
        return lambda value: None if value is None else adapt_datetime(value)
    if conversion == "as_is":
        return lambda value: value
    return lambda value: field.get_db_prep_save(value, connection)


def _write_alias(model, instance: models.Model | None = None) -> str:
    if instance is not None and instance._state.db:
        return instance._state.db
    return router.db_for_write(model)


def _execute(using: str, sql: str, params: list) -> int:
    """Run one statement; the number of rows it touched."""
    with connections[using].cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount


def start_run(
    flow: Flow,
    trigger: str,
    input: dict,
    request_meta: dict,
    *,
    delivery_id: str = "",
    using=None,
) -> FlowRun | None:
    """A new run of `flow`, stored already `running` (one INSERT).

    Runs start in the caller's thread the moment they are created, so they are
    never stored `queued` first: that was a second write and a second commit
    per run for a state nobody could observe for long. No `save()`, so no
    signals; nothing listens to them.

    With a `delivery_id` the INSERT does nothing when the flow already has a
    run of that delivery (`run_unique_delivery_per_flow`), and None is
    returned: the claim costs no extra statement (flows/engine/deliveries.py).
    """
    now = timezone.now()
    run = FlowRun(
        flow=flow,
        flow_version=flow.version,
        trigger=trigger,
        status=FlowRun.Status.RUNNING,
        input=input,
        request_meta=request_meta,
        delivery_id=delivery_id,
        created_at=now,
        started_at=now,
        lease_expires_at=now + timedelta(seconds=settings.RUN_LEASE_SECONDS),
        attempts=1,
    )
    using = using or _write_alias(FlowRun)
    table = Table.of(FlowRun, None, using)
    sql = table.insert()
    if delivery_id:
        # PostgreSQL and SQLite alike; the only unique index a new row (with a
        # fresh uuid) can meet is the delivery's.
        sql += " ON CONFLICT DO NOTHING"
    if not _execute(using, sql, table.values_of(run)):
        return None
    run._state.adding = False
    run._state.db = using
    metrics.run_started(trigger)
    return run


def finish_run(
    run: FlowRun,
    status: str,
    results: dict,
    error: dict | None,
    duration_ms: float,
    *,
    steps: Sequence[dict] = (),
) -> bool:
    """Store the run's final state and its last step rows, atomically.

    False when there was no row to update: the run was deleted with its flow,
    or this executor no longer holds it. The UPDATE is fenced: only while the
    run is `running` under this executor's `attempts`, since the supervisor
    may have interrupted it (lease expired) or handed it to another worker.
    `response` is taken as set on the instance.
    """
    run.status = status
    run.results = results
    run.error = error
    run.finished_at = timezone.now()
    run.duration_ms = duration_ms
    run.lease_expires_at = None
    using = _write_alias(FlowRun, run)
    final = Table.of(FlowRun, FINAL_FIELDS, using)
    fence = f"{final.column('attempts')} = %s AND {final.column('status')} = %s"
    update = final.update_by_pk(fence)
    params = [*final.values_of(run), final.pk_value(run.pk)]
    params += [run.attempts, FlowRun.Status.RUNNING]
    if not steps:
        stored = _execute(using, update, params) > 0
    else:
        step_table = Table.of(RunStep, None, using)
        room = step_table.rows_per_statement(reserved=len(params))
        if connections[using].vendor == "postgresql" and len(steps) <= room:
            stored = _finish_in_one_statement(step_table, steps, update, params)
        else:
            stored = _finish_in_transaction(step_table, steps, update, params)
    if stored:
        metrics.run_finished(run.trigger, status, duration_ms, steps)
    return stored


def _finish_in_one_statement(step_table: Table, steps, update: str, params) -> bool:
    """PostgreSQL: the steps' INSERT in the UPDATE's `WITH` clause.

    One round trip and one commit instead of four (BEGIN, INSERT, UPDATE,
    COMMIT). SQLite has no data-modifying `WITH`.
    """
    step_params = [value for row in steps for value in step_table.values(row)]
    sql = f"WITH steps AS ({step_table.insert(len(steps))}) {update}"
    using = step_table.connection.alias
    return _execute(using, sql, step_params + params) > 0


def _finish_in_transaction(step_table: Table, steps, update: str, params) -> bool:
    """Any database: the steps' INSERT and the UPDATE in one transaction.

    Also PostgreSQL's path for a batch past one statement's parameters (a flow
    past FLOW_MAX_NODES, saved through the admin).
    """
    using = step_table.connection.alias
    with transaction.atomic(using=using):
        _write_step_rows(step_table, steps)
        return _execute(using, update, params) > 0


def write_steps(rows: Sequence[dict], *, using=None) -> None:
    """Insert step rows (dicts keyed by field attname) in one `executemany`."""
    if rows:
        _write_step_rows(Table.of(RunStep, None, using or _write_alias(RunStep)), rows)
        metrics.nodes_ran(rows)


def _write_step_rows(table: Table, rows: Sequence[dict]) -> None:
    with table.connection.cursor() as cursor:
        cursor.executemany(table.insert(), [table.values(row) for row in rows])


def mark_unstorable(run: FlowRun, duration_ms: float) -> bool:
    """End `run` failed with `unstorable_output` and no results; False if gone.

    For a run whose final write failed. Not on the hot path, so the ORM.
    """
    run.status = FlowRun.Status.FAILED
    run.results, run.response = {}, None
    run.error = dict(UNSTORABLE)
    run.finished_at, run.duration_ms = timezone.now(), duration_ms
    fields = ["status", "results", "response", "error", "finished_at", "duration_ms"]
    stored = FlowRun.objects.filter(
        pk=run.pk, attempts=run.attempts, status=FlowRun.Status.RUNNING
    ).update(lease_expires_at=None, **{name: getattr(run, name) for name in fields})
    if stored:
        metrics.run_finished(run.trigger, run.status, duration_ms, ())
    return stored > 0


def mark_interrupted(runs: models.QuerySet) -> int:
    """End these runs `interrupted`; returns how many."""
    return runs.update(
        status=FlowRun.Status.INTERRUPTED,
        finished_at=timezone.now(),
        lease_expires_at=None,
        error=INTERRUPTED,
    )


def webhook_target(pk: uuid.UUID, *, using=None) -> Flow | None:
    """The flow with this id if its webhook is enabled, else None.

    Loads only `WEBHOOK_FIELDS`, through `raw()`: `get()` spends about 0.2 ms
    of CPU more compiling the query than `raw()` does.
    """
    using = using or router.db_for_read(Flow)
    table = Table.of(Flow, WEBHOOK_FIELDS, using)
    sql = table.select_by_pk(table.column("webhook_enabled"))
    query = Flow.objects.db_manager(using).raw(sql, [table.pk_value(pk)])
    return next(iter(query), None)
