"""The database engine's enqueue: the run and its task in one statement
(flows/engine/enqueue_db.py), the same task row django-tasks-db makes."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django_tasks.exceptions import InvalidTaskError
from django_tasks_db.compat import task_enqueued
from django_tasks_db.models import DBTaskResult

from flows.engine import background, enqueue_db, sql
from flows.engine.background import enqueue_run, execute_run
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

TASK_FIELDS = (
    "status",
    "args_kwargs",
    "priority",
    "task_path",
    "worker_ids",
    "queue_name",
    "backend_name",
    "run_after",
    "return_value",
    "exception_class_path",
    "traceback",
    "started_at",
    "finished_at",
)
RESULT_FIELDS = (
    "task",
    "id",
    "status",
    "enqueued_at",
    "started_at",
    "last_attempted_at",
    "finished_at",
    "args",
    "kwargs",
    "backend",
    "errors",
    "worker_ids",
)


@pytest.fixture
def flow(alice):
    nodes, edges = chain(trigger(), code("c", "return input.n * 2;"))
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def writes(queries) -> list[str]:
    return [
        q["sql"].split()[0]
        for q in queries
        if q["sql"].split()[0] in ("INSERT", "UPDATE", "WITH")
    ]


def test_an_async_run_and_its_task_are_stored_by_one_statement(flow):
    with CaptureQueriesContext(connection) as queries:
        run = enqueue_run(flow, {"n": 2}, FlowRun.Trigger.WEBHOOK)

    one = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT"]
    assert writes(queries) == one
    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.background, stored.input) == (
        "queued",
        True,
        {"n": 2},
    )
    assert stored.lease_expires_at is not None
    [task] = DBTaskResult.objects.all()
    assert task.args_kwargs == {"args": [str(run.pk)], "kwargs": {}}


def test_the_task_row_is_the_one_the_engine_itself_would_make(flow):
    run = enqueue_run(flow, {"n": 2}, FlowRun.Trigger.WEBHOOK)
    ours = DBTaskResult.objects.get()

    execute_run.enqueue(str(run.pk))  # django-tasks-db's own enqueue
    theirs = DBTaskResult.objects.exclude(pk=ours.pk).get()

    for name in TASK_FIELDS:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert abs(ours.enqueued_at - theirs.enqueued_at).total_seconds() < 5


def test_a_worker_executes_a_run_enqueued_this_way(flow):
    run = enqueue_run(flow, {"n": 21}, FlowRun.Trigger.WEBHOOK)
    task = DBTaskResult.objects.get()

    status = background.execute_queued(task.args_kwargs["args"][0])

    assert status == "succeeded"
    assert FlowRun.objects.get(pk=run.pk).results["c"] == 42


def test_a_delivery_id_is_claimed_by_the_same_one_statement(flow):
    with CaptureQueriesContext(connection) as queries:
        run = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK, delivery_id="d-1")

    one = ["WITH"] if connection.vendor == "postgresql" else ["INSERT", "INSERT"]
    assert writes(queries) == one
    with pytest.raises(background.DeliveryExists) as again:
        enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK, delivery_id="d-1")
    assert again.value.run == run
    assert FlowRun.objects.filter(flow=flow).count() == 1
    assert DBTaskResult.objects.get().args_kwargs["args"] == [str(run.pk)]


def test_the_enqueued_signal_carries_the_result_the_engine_would_send(flow):
    sent = []

    def receiver(sender, task_result, **kwargs):
        sent.append((sender, task_result))

    task_enqueued.connect(receiver)
    try:
        enqueue_run(flow, {"n": 3}, FlowRun.Trigger.WEBHOOK)
    finally:
        task_enqueued.disconnect(receiver)

    [(sender, ours)] = sent
    theirs = DBTaskResult.objects.get().task_result  # what the backend would send
    assert sender is type(theirs.task.get_backend())
    for name in RESULT_FIELDS:
        assert getattr(ours, name) == getattr(theirs, name), name


def test_the_task_row_sent_as_json_has_every_column_the_table_writes(flow):
    # A column django-tasks-db adds must not be left to the database's default.
    run = enqueue_run(flow, {"n": 4}, FlowRun.Trigger.WEBHOOK)
    row = DBTaskResult.objects.get()
    tasks = sql.Table.of(DBTaskResult, None, "default")

    assert json.loads(enqueue_db.task_json(row)) == json.loads(tasks.json_rows([row]))
    assert row.args_kwargs["args"] == [str(run.pk)]


def test_a_backend_made_anew_checks_the_task_again(flow, settings):
    enqueue_run(flow, {"n": 5}, FlowRun.Trigger.WEBHOOK)  # checked once, and kept
    settings.TASKS = {
        "default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["other"]}
    }

    with pytest.raises(InvalidTaskError):
        enqueue_run(flow, {"n": 6}, FlowRun.Trigger.WEBHOOK)
    assert FlowRun.objects.filter(flow=flow).count() == 1
