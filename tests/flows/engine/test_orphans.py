"""A run stored as its flow is deleted (no foreign key since flows 0048:
flows/engine/orphans.py) is not left behind: neither queued forever, nor
shown, nor breaking a page, the API, a worker or the supervisor."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections, transaction
from django.utils import timezone

from flows.engine import background, retention, supervisor
from flows.engine.background import enqueue_run
from flows.models import Flow, FlowRun
from tests.factories import FlowFactory
from tests.processes import needs_postgres


@needs_postgres
@pytest.mark.django_db(transaction=True)
def test_a_202_stored_while_its_flow_is_being_deleted_goes_with_the_flow(alice):
    flow = FlowFactory(created_by=alice)
    collected, stored = threading.Event(), threading.Event()

    def delete_the_flow():
        try:
            with transaction.atomic():
                Flow.objects.get(pk=flow.pk).delete()  # its runs collected: none
                collected.set()
                stored.wait(10)  # the 202's run goes in before this commits
        finally:
            connections.close_all()

    deleting = threading.Thread(target=delete_the_flow)
    deleting.start()
    assert collected.wait(10)
    # A 202 that read the flow before the delete: its INSERT waits for nobody.
    run = enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK)
    assert FlowRun.objects.filter(pk=run.pk).exists()
    stored.set()
    deleting.join(10)

    assert not Flow.objects.filter(pk=flow.pk).exists()
    assert not FlowRun.objects.filter(flow_id=flow.pk).exists()


@pytest.fixture
def late_run(alice):
    """A queued run stored after its flow's delete committed (its request read
    the flow before), beside a run of a flow that stays."""
    flow = FlowFactory(created_by=alice, name="Deleted")
    Flow.objects.filter(pk=flow.pk).delete()
    return enqueue_run(flow, {"n": 1}, FlowRun.Trigger.WEBHOOK)


def expire(run):
    FlowRun.objects.filter(pk=run.pk).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )


def test_a_run_of_a_deleted_flow_is_shown_nowhere_and_breaks_nothing(
    late_run, alice, api, alice_client
):
    kept = enqueue_run(FlowFactory(created_by=alice), {}, FlowRun.Trigger.WEBHOOK)

    listed = api.get("/api/runs")
    assert listed.status_code == 200
    ids = [run["id"] for run in listed.json()["results"]]
    assert ids == [str(kept.pk)]
    assert api.get(f"/api/runs/{late_run.pk}").status_code == 404
    page = alice_client.get("/runs/")
    assert page.status_code == 200
    assert "Deleted" not in page.content.decode()
    assert alice_client.get(f"/runs/{late_run.pk}/").status_code == 404


def test_the_admin_shows_a_run_of_a_deleted_flow_until_something_deletes_it(
    late_run, admin_client
):
    # Its name once read the flow, which is gone: the change page was a 500.
    page = admin_client.get(f"/admin/flows/flowrun/{late_run.pk}/change/")

    assert page.status_code == 200
    assert "(deleted flow)" in page.content.decode()


def test_retention_deletes_finished_and_waiting_runs_of_deleted_flows(
    late_run, alice, settings
):
    # A synchronous run that got past the delete ends finished, a form's run
    # waits: neither has a lease for the supervisor, nor a page to be seen on.
    settings.RUN_RETENTION_DAYS = 0
    FlowRun.objects.filter(pk=late_run.pk).update(status="succeeded", pinned=True)
    waiting = enqueue_run(late_run.flow, {}, FlowRun.Trigger.WEBHOOK)
    FlowRun.objects.filter(pk=waiting.pk).update(status="waiting")
    queued = enqueue_run(late_run.flow, {}, FlowRun.Trigger.WEBHOOK)
    kept = enqueue_run(FlowFactory(created_by=alice), {}, FlowRun.Trigger.WEBHOOK)
    FlowRun.objects.filter(pk=kept.pk).update(status="succeeded")

    report = retention.prune(work_share=1.0)

    assert report.runs_of_deleted_flows == 2
    left = set(FlowRun.objects.values_list("pk", flat=True))
    assert left == {queued.pk, kept.pk}  # the queued one is the supervisor's


def test_a_worker_never_takes_a_run_of_a_deleted_flow(late_run):
    assert background.execute_next() is False
    assert FlowRun.objects.get(pk=late_run.pk).status == "queued"


def test_a_worker_given_it_by_id_deletes_it(late_run):
    # The rq engine's task names its run.
    assert background.execute_queued(str(late_run.pk)) is None
    assert not FlowRun.objects.filter(pk=late_run.pk).exists()


def test_the_supervisor_deletes_it_once_its_lease_has_expired(late_run, alice):
    stranded = enqueue_run(FlowFactory(created_by=alice), {}, FlowRun.Trigger.WEBHOOK)
    assert supervisor.recover().orphaned == 0  # its lease runs on: left alone
    expire(late_run)
    expire(stranded)

    done = supervisor.recover()

    assert done.orphaned == 1
    assert not FlowRun.objects.filter(pk=late_run.pk).exists()
    assert FlowRun.objects.filter(pk=stranded.pk).exists()  # its flow is there
