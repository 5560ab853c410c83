"""The engine's limits: a run's time, a node's output size, a run's results size."""

from __future__ import annotations

import pytest

from flows.engine import run_flow
from flows.models import FlowRun, RunStep
from flows.nodes import NODE_KINDS
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger

pytestmark = pytest.mark.django_db


def make_flow(nodes, edges, **kwargs):
    return FlowFactory(nodes=nodes, edges=edges, **kwargs)


def test_a_run_over_its_time_limit_ends_timed_out(settings):
    settings.RUN_TIMEOUT_SECONDS = 0.2
    flow = make_flow(
        *chain(trigger(), node("wait", "delay", ms=150), node("wait2", "delay", ms=150))
    )

    run = run_flow(flow, {}, "manual")

    assert run.status == "timed_out"
    assert run.error["node_id"] == "wait2"
    assert run.error["code"] == "run_timeout"
    assert FlowRun.objects.get(pk=run.pk).status == "timed_out"


def test_a_node_output_over_the_cap_fails_the_run_with_output_too_large(settings):
    settings.RUN_MAX_OUTPUT_BYTES = 1000
    flow = make_flow(
        *chain(
            trigger(),
            node(
                "big", "transform", values={"text": "{{ input.text }}{{ input.text }}"}
            ),
        )
    )

    run = run_flow(flow, {"text": "x" * 600}, "manual")

    assert run.status == "failed"
    assert run.error == {
        "node_id": "big",
        "code": "output_too_large",
        "message": run.error["message"],
    }
    assert run.steps.get(node_id="big").status == RunStep.Status.FAILED


def test_results_over_the_run_cap_fail_the_run_with_output_too_large(settings):
    settings.RUN_MAX_RESULT_BYTES = 3000
    nodes = [trigger()] + [
        node(f"copy{i}", "transform", values={"text": "{{ input.text }}"})
        for i in range(5)
    ]
    flow = make_flow(*chain(*nodes))

    run = run_flow(flow, {"text": "x" * 900}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "output_too_large"
    assert run.error["node_id"] == "copy2"


# Asserts how long it takes: `timing`, run alone by `make test`.
@pytest.mark.timing
def test_a_code_node_past_the_run_deadline_ends_the_run_timed_out(settings):
    settings.RUN_TIMEOUT_SECONDS = 0.3
    settings.CODE_TIMEOUT_MS = 5000
    flow = make_flow(*chain(trigger(), code("spin", "while (true) {}")))

    run = run_flow(flow, {}, "manual")

    assert run.status == "timed_out"
    assert run.error["node_id"] == "spin"
    assert run.duration_ms < 2000


def test_an_output_that_is_not_json_fails_with_invalid_output(monkeypatch):
    monkeypatch.setattr(NODE_KINDS["transform"], "run", lambda data, ctx: {1, 2})
    flow = make_flow(*chain(trigger(), node("t", "transform", values={})))

    run = run_flow(flow, {}, "manual")

    assert run.error["code"] == "invalid_output"
