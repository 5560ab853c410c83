"""A flow with a webhook and a schedule trigger: each run starts from its own
trigger, and what only the other trigger leads to is skipped."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, node, trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_triggers(alice):
    nodes = [
        trigger(),
        node("tick", "schedule", cron="0 9 * * *", timezone="UTC"),
        code("from_hook", "return {hook: input.name};"),
        code("from_tick", "return {tick: input.scheduled_for};"),
        code("shared", "return {got: prev};"),
    ]
    edges = [
        edge("trigger", "from_hook"),
        edge("tick", "from_tick"),
        edge("from_hook", "shared"),
        edge("from_tick", "shared"),
    ]
    for item in nodes:
        if item["id"] == "shared":
            item["wait"] = "any"
    return FlowFactory(created_by=alice, nodes=nodes, edges=edges)


def statuses(run) -> dict:
    return dict(run.steps.values_list("node_id", "status"))


def test_a_webhook_run_starts_at_the_webhook_trigger(two_triggers):
    run = run_flow(two_triggers, {"name": "Ada"}, FlowRun.Trigger.WEBHOOK)

    assert run.status == "succeeded"
    assert statuses(run) == {
        "trigger": "succeeded",
        "tick": "skipped",
        "from_hook": "succeeded",
        "from_tick": "skipped",
        "shared": "succeeded",
    }
    assert run.steps.get(node_id="tick").error["code"] == "other_trigger"
    assert run.results["shared"] == {"got": {"hook": "Ada"}}


def test_a_schedule_run_starts_at_the_schedule_trigger(two_triggers):
    moment = {"scheduled_for": "2026-11-24T09:00:00Z"}

    run = run_flow(two_triggers, moment, FlowRun.Trigger.SCHEDULE)

    assert statuses(run)["trigger"] == "skipped"
    assert statuses(run)["from_hook"] == "skipped"
    assert run.results["tick"] == moment
    assert run.results["shared"] == {"got": {"tick": "2026-11-24T09:00:00Z"}}


def test_a_manual_run_of_a_schedule_only_flow_starts_at_its_schedule(alice):
    nodes = [
        node("tick", "schedule", cron="0 9 * * *", timezone="UTC"),
        code("work", "return 1;"),
    ]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("tick", "work")])

    run = run_flow(flow, {}, FlowRun.Trigger.MANUAL)

    assert statuses(run) == {"tick": "succeeded", "work": "succeeded"}
