"""One run per delivery (flows/engine/deliveries.py), on the suite's database.

`make test` runs this module again on SQLite when the suite runs on
PostgreSQL: the claim is an `INSERT ... ON CONFLICT DO NOTHING` on both.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flows.engine import store
from flows.engine.deliveries import DeliveryExists, start_delivery
from flows.models import FlowRun, RunStep
from tests.factories import FlowFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def flow():
    return FlowFactory()


def deliver(flow, input=None, delivery_id="d1"):
    return start_delivery(flow, "webhook", input or {"n": 1}, {}, delivery_id)


def test_a_new_delivery_is_claimed_by_the_runs_own_insert(flow):
    with CaptureQueriesContext(connection) as queries:
        run = deliver(flow)

    assert len(queries) == 1
    assert "ON CONFLICT DO NOTHING" in queries[0]["sql"]
    stored = FlowRun.objects.get()
    assert (stored.pk, stored.delivery_id, stored.status) == (run.pk, "d1", "running")


def test_start_run_inserts_nothing_for_a_delivery_the_flow_has(flow):
    deliver(flow)

    again = store.start_run(flow, "webhook", {"n": 1}, {}, delivery_id="d1")

    assert again is None
    assert FlowRun.objects.count() == 1


def test_the_same_delivery_again_raises_with_the_first_run(flow):
    first = deliver(flow)

    with pytest.raises(DeliveryExists) as repeat:
        deliver(flow)

    assert repeat.value.run.pk == first.pk
    assert FlowRun.objects.count() == 1


def test_the_same_id_on_another_flow_is_another_delivery(flow):
    deliver(flow)

    deliver(FlowFactory())

    assert FlowRun.objects.filter(delivery_id="d1").count() == 2


def interrupted_run(flow, input=None):
    run = deliver(flow, input)
    store.mark_interrupted(FlowRun.objects.filter(pk=run.pk))
    RunStep.objects.create(
        run=run, position=0, node_id="trigger", node_type="webhook", status="failed"
    )
    return run


def test_an_interrupted_delivery_restarts_in_its_row_without_old_steps(flow):
    cut_off = interrupted_run(flow)

    again = deliver(flow)

    assert again.pk == cut_off.pk
    stored = FlowRun.objects.get()
    assert stored.status == FlowRun.Status.RUNNING
    assert stored.error is None
    assert stored.finished_at is None
    assert not stored.steps.exists()


def test_only_one_of_two_retries_restarts_an_interrupted_delivery(flow):
    interrupted_run(flow)
    deliver(flow)

    with pytest.raises(DeliveryExists) as second:
        deliver(flow)

    assert second.value.run.status == FlowRun.Status.RUNNING
    assert FlowRun.objects.count() == 1


def test_an_interrupted_delivery_with_another_body_is_not_rerun(flow):
    interrupted_run(flow, {"n": 1})

    with pytest.raises(DeliveryExists) as repeat:
        deliver(flow, {"n": 2})

    assert repeat.value.run.status == FlowRun.Status.INTERRUPTED
    assert FlowRun.objects.get().input == {"n": 1}
