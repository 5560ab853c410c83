"""A run's console logs share one budget (RUN_MAX_LOG_CHARS), whatever its size."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.engine.budget import LOG_BUDGET_MARKER
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

pytestmark = pytest.mark.django_db

# Each node logs 50 lines of 100 characters: 5,000 characters, within a step's caps.
CHATTY = "for (let i = 0; i < 50; i++) console.log('x'.repeat(100)); return 1"


def chatty_flow(owner, count: int):
    nodes, edges = chain(trigger(), *(code(f"c{n}", CHATTY) for n in range(count)))
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def logged_chars(run) -> int:
    return sum(len(line) for step in run.steps.all() for line in step.logs)


def test_logs_past_the_run_budget_are_dropped_with_a_marker(alice, settings):
    settings.RUN_MAX_LOG_CHARS = 12_000
    run = run_flow(chatty_flow(alice, 5), {}, "manual")

    assert run.status == "succeeded"
    steps = {step.node_id: step.logs for step in run.steps.all()}
    assert len(steps["c0"]) == 50 and len(steps["c1"]) == 50
    assert len(steps["c2"]) == 21  # 2,000 characters left: 20 lines, then the marker
    assert steps["c2"][-1] == LOG_BUDGET_MARKER
    assert steps["c3"] == [LOG_BUDGET_MARKER]
    assert steps["c4"] == [LOG_BUDGET_MARKER]
    assert logged_chars(run) <= 12_000 + 3 * len(LOG_BUDGET_MARKER)


def test_the_run_api_answer_stays_small_for_a_chatty_flow(api, alice, settings):
    settings.RUN_MAX_LOG_CHARS = 20_000
    flow = chatty_flow(alice, 40)

    run_id = api.post(f"/api/flows/{flow.id}/run").json()["run_id"]
    response = api.get(f"/api/runs/{run_id}")

    assert response.status_code == 200
    assert len(response.content) < 60_000  # 40 × 5,000 characters without a budget
    assert sum(len(line) for s in response.json()["steps"] for line in s["logs"]) < (
        20_000 + 40 * len(LOG_BUDGET_MARKER)
    )


def test_a_run_within_the_budget_keeps_every_line(alice):
    run = run_flow(chatty_flow(alice, 3), {}, "manual")

    assert logged_chars(run) == 3 * 50 * 100
    assert all(LOG_BUDGET_MARKER not in step.logs for step in run.steps.all())
