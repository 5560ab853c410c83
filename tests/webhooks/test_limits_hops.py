"""Webhook loops: a flow that calls its own webhook (or two flows calling each
other) must stop at `WEBHOOK_MAX_HOPS` with 508 `loop_detected`, not run forever.

The loops run over a real socket (the live server, threaded like gunicorn's
gthread workers), with loopback allowed for the http_request node.
"""

from __future__ import annotations

import pytest

from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.webhooks.conftest import post_webhook, webhook_runs


@pytest.fixture
def loopback(settings, live_server):
    settings.HTTP_NODE_ALLOWLIST = ["127.0.0.1"]
    settings.WEBHOOK_MAX_HOPS = 3
    # Each hop waits on the next inside one process: room for all of them, so
    # the hop limit (not admission's caps) is what ends the chain.
    settings.SYNC_RUNS_PER_PROCESS = 20
    settings.SYNC_RUNS_PER_OWNER = 20
    settings.SYNC_RUNS_PER_ACCOUNT = 20
    settings.SYNC_RUNS_PER_FLOW = 20
    return live_server.url


def caller_flow(alice, **http_data):
    """A webhook flow whose only work is one http_request (URL set later),
    which outputs an error answer (the 508) rather than failing on it."""
    call = node("call", "http_request", method="POST", body={}, on_http_error="output")
    call["data"].update(http_data)
    nodes, edges = chain(trigger(), call)
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def point_at(flow, target, base_url, **extra):
    flow.nodes[1]["data"].update(url=f"{base_url}/api/webhooks/{target.id}", **extra)
    flow.save()


def deepest_call(flow) -> dict:
    """The http_request output of the last run in the chain (the one refused)."""
    runs = FlowRun.objects.filter(flow__created_by=flow.created_by).order_by(
        "created_at"
    )
    return runs.last().results["call"]


def test_a_flow_calling_its_own_webhook_stops_at_the_hop_limit(sender, alice, loopback):
    flow = caller_flow(alice)
    point_at(flow, flow, loopback)

    answer = sender.post_json(f"/api/webhooks/{flow.id}", {})

    assert answer.status == 200
    assert webhook_runs(flow) == 3
    refused = deepest_call(flow)
    assert refused["status"] == 508
    assert refused["body"]["error"]["code"] == "loop_detected"
    hops = sorted(
        run.request_meta["headers"].get("weir-hops", "0")
        for run in FlowRun.objects.filter(flow=flow)
    )
    assert hops == ["0", "1", "2"]


def test_two_flows_calling_each_other_stop_at_the_hop_limit(sender, alice, loopback):
    ping, pong = caller_flow(alice), caller_flow(alice)
    point_at(ping, pong, loopback)
    point_at(pong, ping, loopback)

    answer = sender.post_json(f"/api/webhooks/{ping.id}", {})

    assert answer.status == 200
    assert webhook_runs(ping) + webhook_runs(pong) == 3
    assert deepest_call(ping)["status"] == 508


def test_a_flow_cannot_reset_the_count_with_its_own_header(sender, alice, loopback):
    flow = caller_flow(alice, headers={"Weir-Hops": "0", "weir-hops": "0"})
    point_at(flow, flow, loopback)

    sender.post_json(f"/api/webhooks/{flow.id}", {})

    assert webhook_runs(flow) == 3
    assert deepest_call(flow)["status"] == 508


def test_a_request_at_the_hop_limit_is_refused_without_a_run(
    client, hook_flow, settings
):
    settings.WEBHOOK_MAX_HOPS = 3

    response = post_webhook(client, hook_flow, b"{}", HTTP_WEIR_HOPS="3")

    assert response.status_code == 508
    assert response.json()["error"]["code"] == "loop_detected"
    assert webhook_runs(hook_flow) == 0


def test_a_request_below_the_hop_limit_runs(client, hook_flow, settings):
    settings.WEBHOOK_MAX_HOPS = 3

    response = post_webhook(client, hook_flow, b"{}", HTTP_WEIR_HOPS="2")

    assert response.status_code == 200
    assert webhook_runs(hook_flow) == 1


def test_a_garbled_hop_header_counts_as_an_outside_call(client, hook_flow, settings):
    settings.WEBHOOK_MAX_HOPS = 3

    response = post_webhook(client, hook_flow, b"{}", HTTP_WEIR_HOPS="many")

    assert response.status_code == 200
    assert webhook_runs(hook_flow) == 1


def test_a_loop_through_an_agents_tool_flow_stops_at_the_hop_limit(
    sender, alice, loopback
):
    relay = caller_flow(alice)
    relay.name = "relay"
    relay.save()
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(relay)
    asker_nodes, asker_edges = chain(
        trigger(),
        node("ask", "agent", agent_id=str(agent.id), message="/tool relay {}"),
    )
    asker = FlowFactory(created_by=alice, nodes=asker_nodes, edges=asker_edges)
    point_at(relay, asker, loopback)

    answer = sender.post_json(f"/api/webhooks/{asker.id}", {})

    assert answer.status == 200
    assert webhook_runs(asker) == 3
    assert FlowRun.objects.filter(flow=relay, trigger="agent").count() == 3
    refused = FlowRun.objects.filter(flow=relay).order_by("created_at").last()
    assert refused.results["call"]["status"] == 508
