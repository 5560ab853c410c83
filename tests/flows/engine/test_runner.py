"""The engine's run semantics: order, branches, skips, failures and storage.

Time and size limits: test_runner_limits.py."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from flows.engine import deferred, run_flow
from flows.models import FlowRun
from flows.nodes import NODE_KINDS
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, edge, node, trigger

pytestmark = pytest.mark.django_db


def make_flow(nodes, edges, **kwargs):
    return FlowFactory(nodes=nodes, edges=edges, **kwargs)


def test_a_code_node_sees_the_input_and_its_result_is_stored():
    flow = make_flow(
        *chain(
            trigger(),
            code(
                "greet",
                "return {greeting: 'hi ' + input.name, city: input.address.city};",
            ),
        )
    )

    run = run_flow(flow, {"name": "Ada", "address": {"city": "Oslo"}}, "manual")

    assert run.as_result()["success"] is True
    assert run.results == {
        "trigger": {"name": "Ada", "address": {"city": "Oslo"}},
        "greet": {"greeting": "hi Ada", "city": "Oslo"},
    }
    stored = FlowRun.objects.get(pk=run.pk)
    assert stored.status == "succeeded"
    assert stored.started_at <= stored.finished_at
    assert stored.duration_ms > 0
    assert list(stored.steps.values_list("node_id", "status")) == [
        ("trigger", "succeeded"),
        ("greet", "succeeded"),
    ]


def test_the_result_has_exactly_the_designed_keys():
    flow = make_flow(*chain(trigger(), code("one", "return 1")))

    result = run_flow(flow, {}, "manual").as_result()

    assert set(result) == {
        "success",
        "run_id",
        "status",
        "results",
        "duration",
        "error",
    }
    assert result["results"] == {"trigger": {}, "one": 1}
    assert result["error"] is None
    assert isinstance(result["duration"], float)


def test_prev_is_the_upstream_output_and_results_hold_every_finished_node():
    flow = make_flow(
        *chain(
            trigger(),
            code("a", "return {n: 2}"),
            code("b", "return {double: prev.n * 2, first: results.a.n}"),
        )
    )

    run = run_flow(flow, {}, "manual")

    assert run.results["b"] == {"double": 4, "first": 2}


def test_prev_is_keyed_by_node_id_when_several_nodes_feed_one():
    nodes = [
        trigger(),
        code("a", "return 1"),
        code("b", "return 2"),
        code("sum", "return prev"),
    ]
    edges = [
        edge("trigger", "a"),
        edge("trigger", "b"),
        edge("a", "sum"),
        edge("b", "sum"),
    ]

    run = run_flow(make_flow(nodes, edges), {}, "manual")

    assert run.results["sum"] == {"a": 1, "b": 2}


def test_a_condition_fires_only_the_chosen_branch_and_skips_the_other():
    nodes = [
        trigger(),
        node("check", "condition", expression="input.count > 5"),
        code("big", "return 'big'"),
        code("small", "return 'small'"),
        code("after_small", "return 'after'"),
    ]
    edges = [
        edge("trigger", "check"),
        edge("check", "big", "true"),
        edge("check", "small", "false"),
        edge("small", "after_small"),
    ]

    run = run_flow(make_flow(nodes, edges), {"count": 9}, "manual")

    assert run.status == "succeeded"
    assert run.results["big"] == "big"
    assert "small" not in run.results
    assert "after_small" not in run.results
    statuses = dict(run.steps.values_list("node_id", "status"))
    assert statuses["small"] == "skipped"
    assert statuses["after_small"] == "skipped"
    assert run.results["check"] == {"count": 9}


def test_a_node_waits_for_all_incoming_edges_so_a_half_fired_merge_is_skipped():
    nodes = [
        trigger(),
        node("check", "condition", expression="input.ok"),
        code("yes", "return 1"),
        code("merge", "return 'merged'"),
    ]
    edges = [
        edge("trigger", "check"),
        edge("check", "yes", "true"),
        edge("yes", "merge"),
        edge("check", "merge", "false"),
    ]

    run = run_flow(make_flow(nodes, edges), {"ok": True}, "manual")

    assert dict(run.steps.values_list("node_id", "status"))["merge"] == "skipped"


def test_the_first_failure_stops_the_run_with_partial_results():
    flow = make_flow(
        *chain(
            trigger(),
            code("ok", "return 1"),
            code("boom", "throw new Error('nope')"),
            code("never", "return 3"),
        )
    )

    run = run_flow(flow, {}, "manual")
    result = run.as_result()

    assert result["success"] is False
    assert result["status"] == "failed"
    assert result["results"] == {"trigger": {}, "ok": 1}
    assert result["error"]["node_id"] == "boom"
    assert result["error"]["code"] == "code_error"
    assert "nope" in result["error"]["message"]
    assert not run.steps.filter(node_id="never").exists()
    step = run.steps.get(node_id="boom")
    assert step.status == "failed"
    assert step.error["code"] == "code_error"


def test_console_log_lines_are_kept_in_the_step_logs():
    flow = make_flow(
        *chain(trigger(), code("talk", "console.log('hi', {a: 1}); return 1"))
    )

    run = run_flow(flow, {}, "manual")

    assert run.steps.get(node_id="talk").logs == ['hi {"a":1}']


def test_code_may_return_any_json_value():
    flow = make_flow(*chain(trigger(), code("list", "return [1, 'two', null, true]")))

    assert run_flow(flow, {}, "manual").results["list"] == [1, "two", None, True]


def test_code_returning_a_promise_gives_its_value():
    flow = make_flow(*chain(trigger(), code("later", "return Promise.resolve(5)")))

    assert run_flow(flow, {}, "manual").results["later"] == 5


def test_a_transform_fills_templates_keeping_types_of_whole_templates():
    transform = node(
        "shape",
        "transform",
        values={
            "count": "{{ input.count }}",
            "label": "n = {{ input.count }}",
            "city": "{{ input.address.city }}",
            "sum": "{{ input.count + 1 }}",
            "missing": "{{ input.nothing }}",
            "nested": {"list": ["{{ prev.name }}"]},
        },
    )
    flow = make_flow(*chain(trigger(), transform))

    run = run_flow(
        flow, {"count": 7, "address": {"city": "Oslo"}, "name": "x"}, "manual"
    )

    assert run.results["shape"] == {
        "count": 7,
        "label": "n = 7",
        "city": "Oslo",
        "sum": 8,
        "missing": None,
        "nested": {"list": ["x"]},
    }


def test_a_template_in_the_input_stays_a_literal_string():
    transform = node(
        "shape",
        "transform",
        values={"a": "{{ input.text }}", "b": "say {{ input.text }}"},
    )
    flow = make_flow(*chain(trigger(), transform))

    run = run_flow(flow, {"text": "{{7*7}}"}, "manual")

    assert run.results["shape"] == {"a": "{{7*7}}", "b": "say {{7*7}}"}


def test_a_response_node_sets_the_run_response():
    response = node(
        "reply",
        "response",
        status=201,
        headers={"X-Name": "{{ input.name }}"},
        body={"hello": "{{ input.name }}"},
    )
    flow = make_flow(*chain(trigger(), response))

    run = run_flow(flow, {"name": "Ada"}, "webhook")

    expected = {"status": 201, "headers": {"X-Name": "Ada"}, "body": {"hello": "Ada"}}
    assert run.response == expected
    assert FlowRun.objects.get(pk=run.pk).response == expected


def test_without_a_response_node_the_response_is_none():
    run = run_flow(make_flow(*chain(trigger(), code("a", "return 1"))), {}, "manual")

    assert run.response is None


def test_a_delay_passes_its_input_on():
    flow = make_flow(
        *chain(trigger(), code("a", "return 4"), node("wait", "delay", ms=10))
    )

    run = run_flow(flow, {}, "manual")

    assert run.results["wait"] == 4
    assert run.steps.get(node_id="wait").duration_ms >= 10


def test_the_trigger_and_request_meta_are_stored():
    flow = make_flow(*chain(trigger()))

    run = run_flow(flow, {"a": 1}, "webhook", request_meta={"ip": "10.0.0.1"})

    stored = FlowRun.objects.get(pk=run.pk)
    assert stored.trigger == "webhook"
    assert stored.input == {"a": 1}
    assert stored.request_meta == {"ip": "10.0.0.1"}
    assert stored.flow_version == flow.version


def run_writes(queries) -> tuple[int, int]:
    """How many INSERTs and UPDATEs of the run table these queries made (on
    PostgreSQL an INSERT may come after the steps' `WITH`)."""
    table = connection.ops.quote_name(FlowRun._meta.db_table)
    inserts = [q for q in queries if f"INSERT INTO {table} " in q["sql"]]
    updates = [q for q in queries if f"UPDATE {table} " in q["sql"]]
    return len(inserts), len(updates)


def spy_on_transform(monkeypatch, during) -> list:
    """Calls `during()` while the flow's transform node runs; what it returned."""
    seen = []
    transform = NODE_KINDS["transform"]
    original_run = transform.run

    def spy(data, ctx):
        seen.append(during())
        return original_run(data, ctx)

    monkeypatch.setattr(transform, "run", spy)
    return seen


def test_a_fast_run_is_written_once_whole_when_it_ends(monkeypatch):
    seen = spy_on_transform(monkeypatch, lambda: FlowRun.objects.count())
    flow = make_flow(*chain(trigger(), node("t", "transform", values={"a": 1})))

    with CaptureQueriesContext(connection) as queries:
        run = run_flow(flow, {}, "manual")

    assert seen == [0]  # nothing stored while it ran
    assert run_writes(queries) == (1, 0)
    stored = FlowRun.objects.get(pk=run.pk)
    assert stored.status == "succeeded"
    assert stored.started_at <= stored.finished_at
    assert list(stored.steps.values_list("node_id", "status")) == [
        ("trigger", "succeeded"),
        ("t", "succeeded"),
    ]


def test_a_run_that_lasts_is_stored_running_then_updated_once(monkeypatch):
    def lease_thread_tick():  # as if STORE_AFTER_SECONDS had passed
        deferred.store_due(now=time.monotonic() + deferred.STORE_AFTER_SECONDS)
        return FlowRun.objects.values_list("status", "lease_expires_at").get()

    seen = spy_on_transform(monkeypatch, lease_thread_tick)
    flow = make_flow(*chain(trigger(), node("t", "transform", values={"a": 1})))

    with CaptureQueriesContext(connection) as queries:
        run = run_flow(flow, {}, "manual")

    [(status, lease_expires_at)] = seen
    assert status == "running" and lease_expires_at is not None
    assert run_writes(queries) == (1, 1)  # never a `queued` row first
    stored = FlowRun.objects.get(pk=run.pk)
    assert (stored.status, stored.lease_expires_at) == ("succeeded", None)
    assert stored.steps.count() == 2


def test_an_unexpected_exception_in_a_node_fails_that_node_as_internal_error(
    monkeypatch, caplog
):
    def broken(data, ctx):
        raise KeyError("oops")

    monkeypatch.setattr(NODE_KINDS["transform"], "run", broken)
    flow = make_flow(*chain(trigger(), node("t", "transform", values={})))

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    assert run.error == {
        "node_id": "t",
        "code": "internal_error",
        "message": "The node failed unexpectedly; the error has been logged.",
    }
    assert run.steps.get(node_id="t").status == "failed"
    assert "Node t of run" in caplog.text


def test_a_response_header_rendered_with_a_line_break_fails_the_node():
    response = node("reply", "response", headers={"X-Name": "{{ input.name }}"})
    flow = make_flow(*chain(trigger(), response))

    run = run_flow(flow, {"name": "a\r\nSet-Cookie: session=stolen"}, "webhook")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_header"
    assert run.response is None
