"""The engine's metrics: runs by trigger and status, node durations, the queue."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta

from django.utils import timezone
from prometheus_client import REGISTRY

from flows.engine import run_flow
from flows.models import FlowRun
from sandbox import run_code, worker_pool
from sandbox.pool import WorkerPool
from tests.factories import FlowRunFactory
from tests.flows.graphs import chain_flow, code, trigger


def sample(name: str, **labels) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_a_run_counts_as_started_and_finished_with_its_duration(alice):
    flow = chain_flow(trigger(), code("c", "return 1;"), created_by=alice)
    started = sample("weir_runs_started_total", trigger="manual")
    finished = sample("weir_runs_finished_total", trigger="manual", status="succeeded")
    runs = sample("weir_run_duration_seconds_count", trigger="manual")
    nodes = sample("weir_node_duration_seconds_count", type="code")

    run_flow(flow, {}, "manual")

    assert sample("weir_runs_started_total", trigger="manual") == started + 1
    assert (
        sample("weir_runs_finished_total", trigger="manual", status="succeeded")
        == finished + 1
    )
    assert sample("weir_run_duration_seconds_count", trigger="manual") == runs + 1
    assert sample("weir_node_duration_seconds_count", type="code") == nodes + 1


def test_a_failed_run_counts_under_failed(alice):
    flow = chain_flow(trigger(), code("c", "throw new Error('no');"), created_by=alice)
    before = sample("weir_runs_finished_total", trigger="webhook", status="failed")

    run_flow(flow, {}, "webhook")

    assert sample("weir_runs_finished_total", trigger="webhook", status="failed") == (
        before + 1
    )


def test_a_dead_sandbox_worker_counts_a_restart():
    run_code("return 1;", {})  # the pool has a worker
    pids = worker_pool().pids()
    before = sample("weir_sandbox_worker_restarts_total")
    for pid in pids:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.2)  # let the kills land before the next job

    assert run_code("return 2;", {}).value == 2

    assert sample("weir_sandbox_worker_restarts_total") >= before + 1


def test_the_pool_size_gauge_counts_started_and_stopped_workers():
    pool = WorkerPool(size=1, memory_mb=64)
    workers = sample("weir_sandbox_workers")

    pool.call(
        {
            "mode": "expressions",
            "expressions": ["1"],
            "variables": "{}",
            "timeout_ms": 1000,
            "memory_mb": 64,
            "stack_kb": 256,
            "limits": {},
        },
        time.monotonic() + 10,
    )
    started = sample("weir_sandbox_workers")
    pool.close()

    assert started == workers + 1
    assert sample("weir_sandbox_workers") == workers


def test_the_queue_depth_and_oldest_age_are_read_at_scrape_time(db, api, settings):
    settings.METRICS_TOKEN = "t"
    old = FlowRunFactory(status=FlowRun.Status.QUEUED)
    FlowRun.objects.filter(pk=old.pk).update(
        created_at=timezone.now() - timedelta(seconds=300)
    )
    FlowRunFactory(status=FlowRun.Status.QUEUED)
    FlowRunFactory(status=FlowRun.Status.RUNNING)

    text = api.get("/metrics", headers={"Authorization": "Bearer t"}).content.decode()

    assert "weir_runs_queued 2.0" in text
    age = float(text.split("\nweir_oldest_queued_run_age_seconds ")[1].split()[0])
    assert 300 <= age < 360
