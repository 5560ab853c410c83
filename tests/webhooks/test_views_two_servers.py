"""One delivery sent to two web processes at once runs once (docs/webhooks.md).

Two real gunicorn processes on two ports share the test database, as two
machines behind a load balancer share PostgreSQL; no Redis is involved.
"""

from __future__ import annotations

import json
import threading

from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger
from webhooks.signatures import generate_secret, signed_headers


def test_one_signed_delivery_at_two_processes_at_once_makes_one_run(gunicorn, alice):
    nodes, edges = chain(trigger(), node("wait", "delay", ms=1500))
    flow = FlowFactory(
        created_by=alice, nodes=nodes, edges=edges, webhook_secret=generate_secret()
    )
    servers = [gunicorn(threads=4), gunicorn(threads=4)]
    body = json.dumps({"order": 42}).encode()
    headers = {
        "Content-Type": "application/json",
        **signed_headers(flow.webhook_secret, body, msg_id="msg_42"),
    }
    start = threading.Barrier(2)
    answers = [None, None]

    def deliver(index):
        start.wait()
        answers[index] = servers[index].request(
            "POST", f"/api/webhooks/{flow.id}", body, headers
        )

    threads = [threading.Thread(target=deliver, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    ran = next(answer for answer in answers if answer.status == 200)
    other = next(answer for answer in answers if answer is not ran)
    assert other.status == 409
    assert other.json()["error"]["code"] == "conflict"
    run = FlowRun.objects.get(flow=flow)
    assert run.delivery_id == "msg_42"
    assert ran.json()["run_id"] == str(run.id)

    replayed = servers[1].request("POST", f"/api/webhooks/{flow.id}", body, headers)

    assert replayed.status == 200
    assert replayed.headers["idempotent-replayed"] == "true"
    assert replayed.json() == ran.json()
    assert FlowRun.objects.filter(flow=flow).count() == 1
