"""Run persistence (flows/engine/store.py) on the database the suite runs on.

`make test` runs this module a second time on SQLite when the suite runs on
PostgreSQL, so both backends' paths of `finish_run` are covered in CI.
"""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flows.engine import store
from flows.engine.new_run import new_run
from flows.models import Flow, FlowRun, RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import chain, trigger

pytestmark = pytest.mark.django_db

# How `finish_run` writes steps and the final state, by backend: PostgreSQL in
# one statement while the batch fits, SQLite always in a transaction.
ONE_STATEMENT = {"postgresql": True, "sqlite": False}


@pytest.fixture
def flow():
    return FlowFactory(nodes=chain(trigger())[0], edges=[])


def step(run, position: int, **fields) -> dict:
    return {
        "run_id": run.id,
        "position": position,
        "node_id": f"n{position}",
        "status": "succeeded",
        **fields,
    }


def writes(queries) -> list[str]:
    """The first word of each statement that wrote (savepoints left out)."""
    # Django logs an executemany as "<n> times: <sql>".
    statements = [
        query["sql"].partition(" times: ")[2] or query["sql"] for query in queries
    ]
    return [
        sql.split()[0]
        for sql in statements
        if sql.startswith(("INSERT", "UPDATE", "WITH"))
    ]


def test_start_run_stores_the_run_running_in_one_insert(flow):
    with CaptureQueriesContext(connection) as queries:
        run = store.start_run(flow, "webhook", {"a": 1}, {"ip": "10.0.0.1"})

    assert writes(queries) == ["INSERT"]
    assert len(queries) == 1
    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.trigger, stored.input) == (
        "running",
        "webhook",
        {"a": 1},
    )
    assert stored.request_meta == {"ip": "10.0.0.1"}
    assert stored.flow_version == flow.version
    assert stored.started_at == stored.created_at == run.started_at


def test_a_new_run_has_every_other_field_at_its_default(flow):
    """`new_run` builds the instance positionally; a field added to FlowRun,
    or its order changed, must still leave each field what Django gives it."""
    parent = store.start_run(flow, "manual", {}, {})
    run = new_run(flow, "call", {"a": 1}, None, delivery_id="d1", called_by=parent)
    given = {"flow_id", "flow_version", "trigger", "input", "request_meta"}
    given |= {"delivery_id", "called_by_id", "created_at", "id"}
    given |= {"status", "started_at", "attempts", "lease_expires_at"}
    django_made = FlowRun()

    for field in FlowRun._meta.concrete_fields:
        if field.attname not in given:
            assert getattr(run, field.attname) == getattr(django_made, field.attname), (
                field.attname
            )
    assert (run.flow, run.called_by, run.error_of) == (flow, parent, None)
    assert (run.input, run.request_meta, run.delivery_id) == ({"a": 1}, {}, "d1")
    assert run._state.adding and run.id != django_made.id
    assert run.results is not new_run(flow, "call", {}, None).results


def test_delivery_run_finds_the_flows_run_of_that_delivery_only(flow):
    other = FlowFactory(nodes=flow.nodes, edges=[])
    mine = store.start_run(flow, "webhook", {"a": 1}, {}, delivery_id="d-1")
    store.start_run(other, "webhook", {}, {}, delivery_id="d-2")
    store.start_run(flow, "webhook", {}, {})  # no delivery id

    with CaptureQueriesContext(connection) as queries:
        found = store.delivery_run(flow, "d-1")

    assert len(queries) == 1
    assert (found.pk, found.input, found.status) == (mine.pk, {"a": 1}, "running")
    assert found.created_at == mine.created_at
    assert store.delivery_run(flow, "d-2") is None
    assert store.delivery_run(flow, "") is None
    assert store.delivery_run(other, "d-2").delivery_id == "d-2"


def test_a_delivery_is_claimed_once(flow):
    first = store.start_run(flow, "webhook", {"a": 1}, {}, delivery_id="d-1")
    again = store.start_run(flow, "webhook", {"a": 1}, {}, delivery_id="d-1")

    assert first is not None and again is None
    assert FlowRun.objects.filter(flow=flow, delivery_id="d-1").count() == 1


def test_finish_run_stores_the_final_state_and_the_last_steps(flow):
    run = store.start_run(flow, "manual", {}, {})
    run.response = {"status": 201, "headers": {}, "body": "ok"}

    stored = store.finish_run(
        run,
        "succeeded",
        {"n0": {"x": 1}},
        None,
        12.5,
        steps=[step(run, 0, output={"x": 1}), step(run, 1, status="skipped")],
    )

    assert stored is True
    run = FlowRun.objects.get(pk=run.pk)
    assert (run.status, run.results, run.duration_ms) == (
        "succeeded",
        {"n0": {"x": 1}},
        12.5,
    )
    assert run.response == {"status": 201, "headers": {}, "body": "ok"}
    assert run.finished_at >= run.started_at
    assert list(run.steps.values_list("node_id", "status", "output", "logs")) == [
        ("n0", "succeeded", {"x": 1}, []),
        ("n1", "skipped", None, []),
    ]


def test_the_final_write_takes_one_statement_where_the_backend_allows(flow):
    run = store.start_run(flow, "manual", {}, {})

    with CaptureQueriesContext(connection) as queries:
        store.finish_run(run, "succeeded", {}, None, 1.0, steps=[step(run, 0)])

    if ONE_STATEMENT[connection.vendor]:
        assert writes(queries) == ["WITH"]
    else:
        assert writes(queries) == ["INSERT", "UPDATE"]
    assert RunStep.objects.filter(run=run).count() == 1


def test_a_final_batch_of_thousands_of_steps_is_one_statement_where_it_can_be(flow):
    """All the steps are one JSON parameter on PostgreSQL, so the wire
    protocol's 65,535 parameters (5,461 steps of 12 values) are no limit."""
    run = store.start_run(flow, "manual", {}, {})
    steps = [step(run, i) for i in range(6000)]

    with CaptureQueriesContext(connection) as queries:
        store.finish_run(run, "succeeded", {"n0": 1}, None, 12.5, steps=steps)

    if ONE_STATEMENT[connection.vendor]:
        assert writes(queries) == ["WITH"]
    else:
        assert writes(queries) == ["INSERT", "UPDATE"]
    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.results) == ("succeeded", {"n0": 1})
    assert stored.steps.count() == 6000
    assert stored.steps.last().node_id == "n5999"


def test_step_values_survive_the_json_round_trip(flow):
    run = store.start_run(flow, "manual", {}, {})
    odd = {"s": "quote ' and \\ backslash", "u": "été 😀", "n": None, "f": 1.5}
    row = step(run, 0, output=odd, logs=["a", "b"], node_name="Ünïcode")

    store.finish_run(run, "succeeded", {}, None, 1.0, steps=[row])

    stored = RunStep.objects.get(run=run)
    assert stored.output == odd
    assert (stored.logs, stored.node_name) == (["a", "b"], "Ünïcode")


def test_finishing_a_run_whose_flow_was_deleted_stores_nothing(flow):
    run = store.start_run(flow, "manual", {}, {})
    Flow.objects.filter(pk=flow.pk).delete()

    assert store.finish_run(run, "succeeded", {}, None, 1.0) is False
    assert not FlowRun.objects.filter(pk=run.pk).exists()


def test_write_steps_fills_defaults_of_missing_fields(flow):
    run = store.start_run(flow, "manual", {}, {})

    store.write_steps([step(run, 0), step(run, 1, logs=["hi"], node_name="Two")])

    rows = RunStep.objects.filter(run=run).values_list("node_name", "logs", "error")
    assert list(rows) == [("", [], None), ("Two", ["hi"], None)]


def test_mark_unstorable_ends_the_run_failed_without_results(flow):
    run = store.start_run(flow, "manual", {}, {})
    run.results, run.response = {"a": 1}, {"status": 200}

    assert store.mark_unstorable(run, 3.0) is True

    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.results, stored.response) == ("failed", {}, None)
    assert stored.error["code"] == "unstorable_output"
    assert stored.duration_ms == 3.0


def test_mark_interrupted_ends_only_the_given_runs(flow):
    stuck = store.start_run(flow, "manual", {}, {})
    other = store.start_run(flow, "manual", {}, {})

    assert store.mark_interrupted(FlowRun.objects.filter(pk=stuck.pk)) == 1

    stuck.refresh_from_db()
    assert (stuck.status, stuck.error["code"]) == ("interrupted", "interrupted")
    assert stuck.lease_expires_at is None
    assert stuck.finished_at is not None
    assert FlowRun.objects.get(pk=other.pk).status == "running"


def test_webhook_target_loads_an_enabled_flow_in_one_query(flow):
    with CaptureQueriesContext(connection) as queries:
        found = store.webhook_target(flow.pk)
        seen = (found.id, found.created_by_id, found.nodes, found.webhook_secret)

    assert len(queries) == 1
    assert seen == (flow.id, flow.created_by_id, flow.nodes, "")
    assert found.name == flow.name  # any other field loads on access


def test_webhook_target_is_none_for_a_disabled_or_unknown_flow(flow):
    Flow.objects.filter(pk=flow.pk).update(webhook_enabled=False)

    assert store.webhook_target(flow.pk) is None
    assert store.webhook_target(uuid.uuid4()) is None
