"""Log streaming: an audit event and a run outcome reach a syslog server (UDP
and TCP) and an HTTP endpoint started by the test; an endpoint that is down
for a while gets them once it is back; one that hangs slows no run."""

from __future__ import annotations

import logging
import socket
import time

import pytest
from prometheus_client import REGISTRY
from rest_framework.test import APIClient

from core.telemetry.shipping.destinations import Entry, HttpLines
from core.telemetry.shipping.handler import ShippingHandler
from core.telemetry.shipping.shipper import Shipper
from flows.engine import run_flow
from tests.accounts.test_bearer import issue
from tests.core.telemetry.log_listeners import start_http, start_syslog
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger
from tests.processes import needs_postgres, request
from tests.waiting import wait_until

SHIPPED = ("weir.audit", "weir.runs")
FAST = {"flush_seconds": 0.05, "max_backoff": 0.2, "timeout": 1.0}


@pytest.fixture
def ship_to():
    """Attach a ShippingHandler (made with the given arguments) to the audit
    and run loggers, as LOGGING does when a destination is set."""
    handlers = []

    def attach(**arguments) -> ShippingHandler:
        handler = ShippingHandler(**{**FAST, **arguments})
        for name in SHIPPED:
            logging.getLogger(name).addHandler(handler)
        handlers.append(handler)
        return handler

    yield attach
    for handler in handlers:
        for name in SHIPPED:
            logging.getLogger(name).removeHandler(handler)
        handler.close()


def audit_and_run(user, capture) -> tuple[str, str]:
    """Create a flow through the API (audit `flow.created`) and run it (a
    run outcome): (the flow's id, the run's id)."""
    client = APIClient()
    client.force_login(user)
    with capture(execute=True):
        created = client.post("/api/flows", {"name": "Shipped"}, format="json")
    flow = FlowFactory(
        created_by=user, nodes=chain(trigger(), code("c", "return 1"))[0]
    )
    flow.edges = chain(trigger(), code("c", "return 1"))[1]
    flow.save()
    with capture(execute=True):
        run = run_flow(flow, {}, "manual")
    return created.json()["id"], str(run.id)


def assert_got_both(received, flow_id: str, run_id: str) -> None:
    wait_until(lambda: len(received.events()) >= 2, timeout=5)
    events = received.events()
    assert any(
        e.get("action") == "flow.created" and e.get("target_id") == flow_id
        for e in events
    ), events
    assert any(
        e.get("type") == "run.finished"
        and e["run"] == run_id
        and e["status"] == "succeeded"
        for e in events
    ), events


@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_a_syslog_server_receives_an_audit_event_and_a_run_outcome(
    transport, ship_to, alice, django_capture_on_commit_callbacks
):
    server, url = start_syslog(transport)
    ship_to(syslog_url=url)

    flow_id, run_id = audit_and_run(alice, django_capture_on_commit_callbacks)

    assert_got_both(server.received, flow_id, run_id)
    messages = {m["msgid"]: m for m in server.received.items}
    assert messages["audit"]["pri"] == str(16 * 8 + 6)  # local0.info
    assert messages["run"]["json"]["logger"] == "weir.runs"
    server.shutdown()


def test_an_http_endpoint_receives_json_lines(
    ship_to, alice, django_capture_on_commit_callbacks
):
    server, url = start_http()
    ship_to(http_url=url)

    flow_id, run_id = audit_and_run(alice, django_capture_on_commit_callbacks)

    assert_got_both(server.received, flow_id, run_id)
    assert set(server.content_types) == {"application/x-ndjson"}
    server.shutdown()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def entry(number: int) -> Entry:
    line = f'{{"event": {{"number": {number}}}}}'
    return Entry(line=line, created=time.time(), level=logging.INFO, kind="audit")


def test_lines_sent_while_the_endpoint_is_down_arrive_once_it_is_back(caplog):
    port = free_port()
    shipper = Shipper(
        HttpLines(f"http://127.0.0.1:{port}/logs", timeout=1.0),
        flush_seconds=0.05,
        max_backoff=0.2,
    )
    for number in range(5):
        shipper.offer(entry(number))
    wait_until(lambda: "is away" in caplog.text, timeout=5)

    server, _ = start_http(port)
    try:
        wait_until(lambda: len(server.received.items) == 5, timeout=5)
        assert [e["number"] for e in server.received.events()] == [0, 1, 2, 3, 4]
        wait_until(lambda: "is back" in caplog.text, timeout=5)
    finally:
        shipper.close()
        server.shutdown()


def dropped(destination: str) -> float:
    value = REGISTRY.get_sample_value(
        "weir_log_stream_dropped_total", {"destination": destination}
    )
    return value or 0.0


def test_a_full_queue_drops_counts_and_logs_instead_of_waiting(caplog):
    server, url = start_http()
    server.hang.set()
    shipper = Shipper(
        HttpLines(url, timeout=0.5),
        capacity=3,
        flush_seconds=0.05,
        max_backoff=0.2,
        batch_size=1,
    )
    before = dropped("http")
    try:
        offered = [shipper.offer(entry(number)) for number in range(10)]
        assert offered.count(False) >= 6
        assert dropped("http") - before == offered.count(False)
        server.hang.clear()
        wait_until(lambda: "were dropped while it was away" in caplog.text, timeout=10)
    finally:
        shipper.close()
        server.shutdown()


@pytest.mark.timing
def test_a_hanging_endpoint_does_not_slow_a_run(
    ship_to, alice, django_capture_on_commit_callbacks
):
    server, url = start_http()
    server.hang.set()
    ship_to(http_url=url, timeout=5.0, flush_seconds=0.0)
    nodes, edges = chain(trigger(), code("c", "return 1"))
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    with django_capture_on_commit_callbacks(execute=True):
        run_flow(flow, {}, "manual")  # the first line: the shipper is now stuck

    started = time.monotonic()
    with django_capture_on_commit_callbacks(execute=True):
        runs = [run_flow(flow, {}, "manual") for _ in range(5)]
    took = time.monotonic() - started

    assert all(run.status == "succeeded" for run in runs)
    assert took < 4.0  # one stuck POST alone waits 5 s
    server.shutdown()


@pytest.mark.processes
@needs_postgres
def test_a_web_process_ships_its_audit_events_and_run_outcomes(processes, alice):
    server, url = start_http()
    web = processes.web(
        env={"LOG_STREAM_HTTP_URL": url, "LOG_STREAM_FLUSH_SECONDS": "0.05"}
    )
    _, token = issue(alice, "flows:read", "flows:write", "flows:run")
    auth = {"Authorization": f"Bearer {token}"}
    nodes, edges = chain(trigger(), code("c", "return 1"))

    status, _, flow = request(
        web,
        "POST",
        "/api/flows",
        {"name": "Shipped", "nodes": nodes, "edges": edges},
        auth,
    )
    assert status == 201, flow
    status, _, run = request(web, "POST", f"/api/flows/{flow['id']}/run", {}, auth)

    assert status == 200, run
    assert_got_both(server.received, flow["id"], run["run_id"])
    server.shutdown()
