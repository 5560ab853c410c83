"""The supervisor's pass (`recover`), and a synchronous run whose web worker
was killed -9: `interrupted` within its lease."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from flows.engine import fair_queue, supervisor
from flows.models import FlowRun
from tests.factories import FlowRunFactory
from tests.flows.graphs import chain_flow, code, node, trigger
from tests.processes import needs_postgres, request
from tests.waiting import wait_until


def expired(**fields) -> FlowRun:
    return FlowRunFactory(
        status=FlowRun.Status.RUNNING,
        attempts=1,
        lease_expires_at=timezone.now() - timedelta(seconds=1),
        **fields,
    )


@pytest.mark.django_db
def test_a_synchronous_run_past_its_lease_is_interrupted():
    run = expired()

    assert supervisor.recover().interrupted == 1

    run.refresh_from_db()
    assert (run.status, run.error["code"]) == ("interrupted", "interrupted")
    assert run.finished_at is not None


@pytest.mark.django_db
def test_a_background_run_past_its_lease_is_queued_again_for_a_worker():
    run = expired(background=True)

    assert supervisor.recover().requeued == 1

    run.refresh_from_db()
    assert run.status == "queued"
    assert run.lease_expires_at > timezone.now()
    assert fair_queue.next_due_run_id() == str(run.id)  # a worker takes it next


@pytest.mark.django_db
def test_a_run_cancelled_while_its_executor_died_ends_cancelled():
    run = expired(background=True, cancel_requested=True)

    assert supervisor.recover().cancelled == 1

    run.refresh_from_db()
    assert run.status == "cancelled"
    assert fair_queue.next_due_run_id() is None


@pytest.mark.django_db
def test_runs_whose_lease_holds_and_finished_runs_are_left_alone():
    going = FlowRunFactory(
        status="running", lease_expires_at=timezone.now() + timedelta(seconds=9)
    )
    done = FlowRunFactory(status="succeeded")

    assert supervisor.recover().total == 0

    assert FlowRun.objects.get(pk=going.pk).status == "running"
    assert FlowRun.objects.get(pk=done.pk).status == "succeeded"


@needs_postgres
def test_a_web_worker_killed_mid_run_leaves_an_interrupted_run(processes):
    flow = chain_flow(
        trigger(), node("wait", "delay", ms=20000), code("last", "return 1;")
    )
    processes.supervisor()
    web = processes.web(workers=1)
    caller = threading.Thread(
        target=lambda: _ignore_errors(request, web, "POST", flow.webhook_path, {}),
        daemon=True,
    )
    caller.start()
    assert wait_until(lambda: FlowRun.objects.filter(flow=flow).exists(), 90)

    [gunicorn_worker] = web.children()
    killed_at = time.monotonic()
    _kill(gunicorn_worker)

    run = FlowRun.objects.get(flow=flow)
    assert wait_until(
        lambda: FlowRun.objects.get(pk=run.pk).status == "interrupted", 60
    ), web.output()
    # Lease (2 s) + supervisor tick (0.5 s) + a margin for a loaded machine.
    assert time.monotonic() - killed_at < 2 + 0.5 + 10
    run.refresh_from_db()
    assert run.error["code"] == "interrupted"
    assert not run.steps.filter(node_id="last").exists()


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)


def _ignore_errors(function, *args):
    with contextlib.suppress(OSError):  # the connection dies with the worker
        function(*args)
