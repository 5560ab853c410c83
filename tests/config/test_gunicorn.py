"""config.gunicorn.QueueStampingWorker: a run that waited for a thread too long is
refused, not run late. With a real gunicorn whose two threads are both busy."""

from __future__ import annotations

import threading

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.waiting import wait_until


def running_runs() -> int:
    """Runs stored `running`: a run longer than 0.2 s is, while it goes."""
    return FlowRun.objects.filter(status=FlowRun.Status.RUNNING).count()


def test_a_webhook_that_waited_past_the_queue_timeout_is_503_not_run_late(
    gunicorn, alice
):
    nodes, edges = chain(trigger(), node("wait", "delay", ms=2500))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    server = gunicorn(
        threads=2,
        SYNC_RUNS_PER_PROCESS=2,
        SYNC_RUNS_PER_OWNER=3,
        SYNC_RUNS_PER_FLOW=3,
        REQUEST_QUEUE_TIMEOUT_SECONDS=1,
    )
    path = f"/api/webhooks/{flow.id}"
    slow = [
        threading.Thread(target=server.post_json, args=(path, {})) for _ in range(2)
    ]
    for thread in slow:
        thread.start()
    assert wait_until(lambda: running_runs() == 2)  # both threads are busy

    late = server.post_json(path, {"late": True})
    page = server.request("GET", "/login/")

    for thread in slow:
        thread.join()
    assert late.status == 503
    assert late.json()["error"]["code"] == "unavailable"
    assert "waited" in late.json()["error"]["message"]
    assert late.headers["retry-after"] == "2"
    assert late.seconds > 1.5  # it really sat in the queue
    assert page.status == 200  # pages are served late, never refused
    assert FlowRun.objects.filter(flow=flow).count() == 2
    assert not FlowRun.objects.filter(input={"late": True}).exists()


def test_the_worker_sizes_the_process_cap_from_its_threads(gunicorn, alice):
    """--threads 3 makes WEB_THREADS 3, so one synchronous run at a time."""
    nodes, edges = chain(trigger(), node("wait", "delay", ms=1500))
    flows = [FlowFactory(created_by=alice, nodes=nodes, edges=edges) for _ in range(2)]
    server = gunicorn(threads=3, SYNC_RUNS_PER_OWNER=5, SYNC_RUNS_PER_FLOW=5)
    first = threading.Thread(
        target=server.post_json, args=(f"/api/webhooks/{flows[0].id}", {})
    )
    first.start()
    assert wait_until(lambda: running_runs() == 1)

    second = server.post_json(f"/api/webhooks/{flows[1].id}", {})

    first.join()
    assert second.status == 503
    assert second.json()["error"]["code"] == "unavailable"
    assert FlowRun.objects.count() == 1
