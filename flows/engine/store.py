"""Run persistence: how runs and their steps reach the database.

The run store's hand-written SQL statements live here, built by `Table`
(flows/engine/sql.py); the only others are the enqueue of a background run
(flows/engine/enqueue_db.py) and the target cache's NOTIFY/LISTEN
(flows/engine/webhook_cache.py). A new run's instance is built by
flows/engine/new_run.py. They are hand-written because they run on every
webhook and every run, and the ORM spent more CPU compiling each of them
(0.2-0.4 ms, about 100 µs a row for `bulk_create`) than the database spent
running it (bench/README.md, "Webhook"). A fast synchronous run costs one
statement: `finish_run`'s INSERT of the whole run, which on PostgreSQL
carries the step rows in its `WITH` clause (flows/engine/deferred.py says
when a run is stored earlier). Any other run costs `insert_run`'s INSERT and
`finish_run`'s final UPDATE, with the last step rows the same way. Writes
that are not on the hot path use the ORM.

Public functions: `insert_run`, `insert_if_flow_exists`, `start_run`, `finish_run`,
`write_steps`, `mark_unstorable`, `delivery_run`, `exists`, `mark_interrupted`,
`webhook_target`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.contrib.auth import get_user_model
from django.db import connections, models, router, transaction
from django.utils import timezone

from flows import metrics
from flows.engine.new_run import new_run
from flows.engine.sql import Table, execute, execute_on
from flows.models import Flow, FlowRun, RunStep

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
    "created_by",
    "workspace",
    "version",
    "nodes",
    "edges",
    "webhook_enabled",
    "webhook_secret",
    "webhook_signature_scheme",
    "webhook_response_mode",
)


_FLOW = FlowRun._meta.get_field("flow")

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


def write_alias(model, instance: models.Model | None = None) -> str:
    if instance is not None and instance._state.db:
        return instance._state.db
    return router.db_for_write(model)


def start_run(
    flow: Flow,
    trigger: str,
    input: dict,
    request_meta: dict,
    *,
    delivery_id: str = "",
    called_by: FlowRun | None = None,
    using=None,
) -> FlowRun | None:
    """A new run of `flow`, stored already `running` (one INSERT).

    Runs start in the caller's thread the moment they are created, so they are
    never stored `queued` first: that was a second write and a second commit
    per run for a state nobody could observe for long.

    With a `delivery_id` the INSERT does nothing when the flow already has a
    run of that delivery (`run_unique_delivery_per_flow`), and None is
    returned: the claim costs no extra statement (flows/engine/deliveries.py).
    """
    run = new_run(
        flow, trigger, input, request_meta, delivery_id=delivery_id, called_by=called_by
    )
    return run if insert_run(run, using=using) else None


def insert_run(run: FlowRun, *, using=None) -> bool:
    """INSERT `run` as it is now; False if its delivery id was taken.

    No `save()`, so no signals; nothing listens to them.
    """
    using = using or write_alias(FlowRun)
    connection = connections[using]
    sql, params = _insert_whole(run, connection, connection.vendor == "postgresql")
    if run.delivery_id:
        # PostgreSQL and SQLite alike; the only unique index a new row (with a
        # fresh uuid) can meet is the delivery's.
        sql += " ON CONFLICT DO NOTHING"
    if not execute_on(connection, sql, params):
        return False
    run._state.adding = False
    run._state.db = using
    metrics.run_started(run.trigger)
    return True


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

    A run that was never stored (a fast synchronous run, flows/engine/
    deferred.py) is inserted whole, steps included: one statement for the
    whole run. A stored run is updated; False when there was no row to
    update: the run was deleted with its flow, or this executor no longer
    holds it. The UPDATE is fenced: only while the run is `running` under this
    executor's `attempts`, since the supervisor may have interrupted it (lease
    expired) or handed it to another worker. `response` is taken as set on the
    instance.
    """
    run.status = status
    run.results = results
    run.error = error
    run.finished_at = timezone.now()
    run.duration_ms = duration_ms
    run.lease_expires_at = None
    using = write_alias(FlowRun, run)
    connection = connections[using]
    postgres = connection.vendor == "postgresql"
    if run._state.adding:
        final, params = _insert_if_flow_exists_sql(run, connection, postgres)
    else:
        final, params = _fenced_update(run, connection)
    if not steps:
        stored = execute_on(connection, final, params) > 0
    else:
        step_table = Table.on(connection, RunStep, None)
        if postgres:
            stored = _finish_in_one_statement(step_table, steps, final, params)
        else:
            stored = _finish_in_transaction(step_table, steps, final, params)
    if stored:
        if run._state.adding:
            run._state.adding, run._state.db = False, using
            metrics.run_started(run.trigger)
        metrics.run_finished(run.trigger, status, duration_ms, steps)
    return stored


def _fenced_update(run: FlowRun, connection) -> tuple[str, list]:
    final = Table.on(connection, FlowRun, FINAL_FIELDS)
    fence = f"{final.column('attempts')} = %s AND {final.column('status')} = %s"
    params = [*final.values_of(run), final.pk_value(run.pk)]
    return final.update_by_pk(fence), params + [run.attempts, FlowRun.Status.RUNNING]


def _insert_whole(run: FlowRun, connection, postgres: bool) -> tuple[str, list]:
    """The INSERT of `run` as it is now: on PostgreSQL its row as one JSON
    parameter (24 parameters cost the driver ~0.1 ms of CPU to adapt)."""
    table = Table.on(connection, FlowRun, None)
    if postgres:
        return table.insert_from_json(), [table.json_rows([run])]
    return table.insert(), table.values_of(run)


def _insert_if_flow_exists_sql(run: FlowRun, connection, postgres: bool):
    """`_insert_whole`, doing nothing if the run's flow is gone (deleted while
    the run ran): no foreign key refuses the row (flows migration 0048), and
    such a run ends `flow_deleted`, unstored. A look-up by primary key, with
    no lock on the flow's row as the foreign key's check took."""
    table = Table.on(connection, FlowRun, None)
    values = [table.json_rows([run])] if postgres else table.values_of(run)
    return table.insert_if(_flow_exists(connection)), values


_FLOW_EXISTS: dict[str, str] = {}


def _flow_exists(connection) -> str:
    """The condition `_insert_if_flow_exists_sql` inserts under, made once per
    database vendor (it is on every fast synchronous run)."""
    condition = _FLOW_EXISTS.get(connection.vendor)
    if condition is None:
        quote = connection.ops.quote_name
        flows = quote(Flow._meta.db_table)
        flow_id = quote(FlowRun._meta.get_field("flow").column)
        flow_pk = quote(Flow._meta.pk.column)
        condition = _FLOW_EXISTS[connection.vendor] = (
            f"EXISTS (SELECT 1 FROM {flows} WHERE {flows}.{flow_pk} "
            f"= candidate.{flow_id})"
        )
    return condition


def _finish_in_one_statement(step_table: Table, steps, final: str, params) -> bool:
    """PostgreSQL: the steps' INSERT in the final statement's `WITH` clause,
    all the steps as one JSON parameter.

    One round trip and one commit instead of four (BEGIN, INSERT, UPDATE,
    COMMIT). The steps' foreign key to a run inserted by the same statement
    holds: it is checked when the statement ends. SQLite has no
    data-modifying `WITH`.
    """
    sql = step_table.with_inserted(final)
    params = [step_table.json_rows(steps), *params]
    return execute_on(step_table.connection, sql, params) > 0


def _finish_in_transaction(step_table: Table, steps, final: str, params) -> bool:
    """Any database: the steps' INSERT and the final statement in one
    transaction (foreign keys are checked at commit).

    Also PostgreSQL's path for a batch past one statement's parameters (a flow
    past FLOW_MAX_NODES, saved through the admin).
    """
    using = step_table.connection.alias
    with transaction.atomic(using=using):
        _write_step_rows(step_table, steps)
        return execute(using, final, params) > 0


def write_steps(rows: Sequence[dict], *, using=None) -> None:
    """Insert step rows (dicts keyed by field attname) in one `executemany`."""
    if rows:
        _write_step_rows(Table.of(RunStep, None, using or write_alias(RunStep)), rows)
        metrics.nodes_ran(rows)


def _write_step_rows(table: Table, rows: Sequence[dict]) -> None:
    with table.connection.cursor() as cursor:
        cursor.executemany(table.insert(), [table.values(row) for row in rows])


def mark_unstorable(run: FlowRun, duration_ms: float) -> bool:
    """End `run` failed with `unstorable_output` and no results; False if gone.

    For a run whose final write failed. Not on the hot path, so the ORM. A run
    that was never stored is inserted that way (False: its flow is gone).
    """
    run.status = FlowRun.Status.FAILED
    run.results, run.response = {}, None
    run.error = dict(UNSTORABLE)
    run.finished_at, run.duration_ms = timezone.now(), duration_ms
    fields = ["status", "results", "response", "error", "finished_at", "duration_ms"]
    if run._state.adding:
        run.lease_expires_at = None
        stored = insert_if_flow_exists(run)
    else:
        stored = FlowRun.objects.filter(
            pk=run.pk, attempts=run.attempts, status=FlowRun.Status.RUNNING
        ).update(lease_expires_at=None, **{name: getattr(run, name) for name in fields})
    if stored:
        metrics.run_finished(run.trigger, run.status, duration_ms, ())
    return bool(stored)


def insert_if_flow_exists(run: FlowRun) -> bool:
    """INSERT `run` as it is now, unless its flow is gone (deleted while the
    run ran); whether it was stored."""
    connection = connections[write_alias(FlowRun)]
    postgres = connection.vendor == "postgresql"
    sql, params = _insert_if_flow_exists_sql(run, connection, postgres)
    if not execute_on(connection, sql, params):
        return False
    run._state.adding, run._state.db = False, connection.alias
    metrics.run_started(run.trigger)
    return True


def delivery_run(flow: Flow, delivery_id: str, *, using=None) -> FlowRun | None:
    """The run of `flow` with this delivery id, or None.

    Through `raw()`, as `webhook_target`: the ORM's `filter(...).first()`
    compiled for ~0.5 ms of CPU on every webhook that carries a delivery id
    (a signed one, or one with an Idempotency-Key). `<> ''` names the partial
    unique index's condition, so the index serves the query however bound.
    """
    using = using or router.db_for_read(FlowRun)
    table = Table.of(FlowRun, None, using)
    flow_column, delivery_column = table.column("flow"), table.column("delivery_id")
    sql = (
        f"SELECT {', '.join(table.columns)} FROM {table.name} WHERE "
        f"{flow_column} = %s AND {delivery_column} = %s AND {delivery_column} <> ''"
    )
    flow_id = _FLOW.get_db_prep_value(flow.pk, table.connection)
    query = FlowRun.objects.db_manager(using).raw(sql, [flow_id, delivery_id])
    return next(iter(query), None)


def exists(run: FlowRun) -> bool:
    return FlowRun.objects.filter(pk=run.pk).exists()


def mark_interrupted(runs: models.QuerySet) -> int:
    """End these runs `interrupted`; returns how many."""
    return runs.update(
        status=FlowRun.Status.INTERRUPTED,
        finished_at=timezone.now(),
        lease_expires_at=None,
        error=INTERRUPTED,
    )


def active_creator(creator_column: str) -> str:
    """SQL: the flow's creator account is active, or gone (deleted users'
    flows stay their workspace's). A deactivated account's flows do not run;
    migration 0014 (0028) tells the target cache when `is_active` changes."""
    users = get_user_model()._meta.db_table
    return (
        f"({creator_column} IS NULL OR "
        f"{creator_column} IN (SELECT id FROM {users} WHERE is_active))"
    )


def webhook_target(pk: uuid.UUID, *, using=None) -> Flow | None:
    """The flow with this id if its webhook is enabled and its creator active,
    else None.

    Loads only `WEBHOOK_FIELDS`, through `raw()`: `get()` spends about 0.2 ms
    of CPU more compiling the query than `raw()` does.
    """
    using = using or router.db_for_read(Flow)
    table = Table.of(Flow, WEBHOOK_FIELDS, using)
    creator = active_creator(table.column("created_by"))
    sql = table.select_by_pk(f"{table.column('webhook_enabled')} AND {creator}")
    query = Flow.objects.db_manager(using).raw(sql, [table.pk_value(pk)])
    return next(iter(query), None)
