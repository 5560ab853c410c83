"""A run never stays `running` because its final write failed.

`Execution.finish` stores the run's end in one transaction; when that write
fails, the run is stored `failed` with its results dropped (`unstorable_output`)
or, when the flow is gone, the caller still gets an answer (`flow_deleted`).
These tests commit for real (transaction=True), as a server does.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import DataError, connection
from django.test import Client

from flows.engine import run_flow, store
from flows.models import Flow, FlowRun, RunStep
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db(transaction=True)


def delete_flow_once_running(flow_id) -> threading.Thread:
    """The owner deletes the flow from another tab while its run waits."""

    connected = threading.Event()

    def delete():
        try:
            # Connected before the run starts: on a loaded machine a new
            # connection could take most of the run's 600 ms delay.
            connection.ensure_connection()
            connected.set()
            give_up = time.monotonic() + 5
            runs = FlowRun.objects.filter(flow_id=flow_id, status="running")
            while not runs.exists() and time.monotonic() < give_up:
                time.sleep(0.005)
            Flow.objects.filter(pk=flow_id).delete()
        finally:
            connection.close()

    thread = threading.Thread(target=delete)
    thread.start()
    connected.wait(10)
    return thread


def test_a_flow_deleted_during_a_delay_node_still_answers_its_webhook(alice):
    nodes, edges = chain(
        trigger(), node("wait", "delay", ms=600), code("after", "return 1;")
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    deleter = delete_flow_once_running(flow.id)

    response = Client().post(
        f"/api/webhooks/{flow.id}", "{}", content_type="application/json"
    )
    deleter.join()

    assert response.status_code == 500
    body = response.json()
    assert body["success"] is False
    assert body["status"] == "failed"
    assert body["error"]["code"] == "flow_deleted"
    assert body["results"] == {}
    assert not Flow.objects.filter(pk=flow.id).exists()
    assert FlowRun.objects.count() == 0
    assert RunStep.objects.count() == 0


def test_a_flow_deleted_during_a_manual_run_answers_the_run_result(api, alice):
    nodes, edges = chain(trigger(), node("wait", "delay", ms=600))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    deleter = delete_flow_once_running(flow.id)

    response = api.post(f"/api/flows/{flow.id}/run")
    deleter.join()

    assert response.status_code == 200
    assert response.json()["error"]["code"] == "flow_deleted"
    assert FlowRun.objects.count() == 0


def test_a_final_write_the_database_refuses_stores_the_run_as_failed(
    alice, monkeypatch
):
    """Fault injection: the checks should make this unreachable, the guard stays."""
    nodes, edges = chain(trigger(), code("c", "return 1;"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    refuse = DataError("unsupported Unicode escape sequence")

    def refusing_finish(run, *args, **kwargs):
        raise refuse

    monkeypatch.setattr(store, "finish_run", refusing_finish)

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    stored = FlowRun.objects.get(pk=run.pk)
    assert stored.status == run.status == FlowRun.Status.FAILED
    assert stored.error["code"] == "unstorable_output"
    assert stored.results == {}
    assert stored.finished_at is not None
    assert stored.steps.count() == 0  # the batch rolled back with the run's row
