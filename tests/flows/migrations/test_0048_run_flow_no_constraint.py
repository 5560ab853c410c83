"""0048: a run's flow is no foreign key in the database any more. The runs
stored keep their flow; a run whose flow is gone can be stored (the race
flows/engine/orphans.py cleans up after); going back deletes such runs and
brings the constraint back."""

from __future__ import annotations

import uuid

import pytest
from django.db import IntegrityError, connection, transaction

from tests.flows.migrations.test_0033_http_request_on_http_error_output import (
    migrate,
)

BEFORE = [("flows", "0047_run_after")]
AFTER = [("flows", "0048_run_flow_no_constraint")]


def flow_and_run(apps):
    ada = apps.get_model("auth", "User").objects.create(username="ada")
    team = apps.get_model("accounts", "Workspace").objects.create(
        name="Ops", slug="ops"
    )
    flow = apps.get_model("flows", "Flow").objects.create(
        created_by=ada, workspace=team, name="Kept"
    )
    run = apps.get_model("flows", "FlowRun").objects.create(
        flow=flow, status="succeeded"
    )
    return flow, run


def store_a_run_of_no_flow(apps):
    return apps.get_model("flows", "FlowRun").objects.create(
        flow_id=uuid.uuid4(), status="queued", background=True
    )


def run_indexes() -> set[str]:
    with connection.cursor() as cursor:
        return {
            index
            for index, info in connection.introspection.get_constraints(
                cursor, "flows_flowrun"
            ).items()
            if info["columns"] == ["flow_id"]
        }


@pytest.mark.django_db(transaction=True)
def test_runs_keep_their_flow_and_a_run_of_no_flow_can_be_stored(
    back_to_the_latest_schema,
):
    old = migrate(BEFORE)
    flow, run = flow_and_run(old)
    with pytest.raises(IntegrityError), transaction.atomic():
        store_a_run_of_no_flow(old)
    assert run_indexes()  # the constraint and its index

    new = migrate(AFTER)

    runs = new.get_model("flows", "FlowRun").objects
    assert list(runs.filter(flow_id=flow.pk).values_list("pk", flat=True)) == [run.pk]
    assert store_a_run_of_no_flow(new).pk
    # Only the runs' list index is left on the flow (it starts with flow_id).
    assert run_indexes() == set()


@pytest.mark.django_db(transaction=True)
def test_going_back_deletes_the_runs_of_no_flow_and_restores_the_constraint(
    back_to_the_latest_schema,
):
    new = migrate(AFTER)
    flow, run = flow_and_run(new)
    store_a_run_of_no_flow(new)

    old = migrate(BEFORE)

    runs = old.get_model("flows", "FlowRun").objects
    assert list(runs.values_list("pk", flat=True)) == [run.pk]
    with pytest.raises(IntegrityError), transaction.atomic():
        store_a_run_of_no_flow(old)
