"""Tracebacks logged outside a node's failure (issue 34, part 2, item 6): the
final write, an error flow that did not start, a tool flow that crashed and a
streamed chat turn that failed are logged without the values the run or turn
opened, as a node's failure is (tests/flows/credentials/test_redact_logs.py)."""

from __future__ import annotations

import logging
import queue

import pytest
from django.db import DatabaseError

from agents import stream
from agents.models import Conversation
from agents.providers import ToolCall
from agents.tools import Toolbox
from agents.turn import Turn
from flows.engine import error_flows, run_flow, store
from flows.engine.runner import Execution
from tests.factories import AgentFactory, FlowFactory, make_credential
from tests.flows.credentials.test_redact_logs import weir_log
from tests.flows.graphs import chain, chain_flow, code, trigger

pytestmark = pytest.mark.django_db

SECRET = "plain-secret-with-no-shape-8f3a"
OPENS_IT = code("c", "return {got: secrets.stripe};")


def test_a_final_write_failure_is_logged_without_the_runs_secrets(
    monkeypatch, caplog, alice
):
    make_credential(alice, "stripe", secrets={"token": SECRET})

    def refused(run, *args, **kwargs):
        raise DatabaseError(f"value {SECRET} refused")

    monkeypatch.setattr(store, "finish_run", refused)
    flow = chain_flow(trigger(), OPENS_IT, created_by=alice)

    with caplog.at_level(logging.ERROR, logger="weir"):
        run_flow(flow, {}, "manual")

    logged = weir_log(caplog)
    assert "could not be stored as it ended" in logged
    assert "DatabaseError: value [redacted:stripe] refused" in logged
    assert SECRET not in logged


def test_an_error_flow_that_did_not_start_is_logged_without_the_secrets(
    monkeypatch, caplog, alice
):
    make_credential(alice, "stripe", secrets={"token": SECRET})
    handler = FlowFactory(created_by=alice)
    nodes, edges = chain(
        trigger(), code("c", "throw new Error('no: ' + secrets.stripe);")
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges, error_flow=handler)

    def away(target, input, *args, **kwargs):
        raise ConnectionError(f"queue away; last value sent {SECRET}")

    monkeypatch.setattr(error_flows, "enqueue_run", away)
    with caplog.at_level(logging.ERROR, logger="weir"):
        run_flow(flow, {"key": SECRET}, "manual")

    logged = weir_log(caplog)
    assert "its error flow" in logged
    assert "last value sent [redacted:stripe]" in logged
    assert SECRET not in logged


def test_a_crashed_tool_flow_is_logged_without_its_runs_secrets(
    monkeypatch, caplog, alice
):
    make_credential(alice, "stripe", secrets={"token": SECRET})
    flow = chain_flow(trigger(), OPENS_IT, created_by=alice, name="Lookup")

    def crash(self, status, error):
        raise RuntimeError(f"could not finish with {SECRET}")

    monkeypatch.setattr(Execution, "finish", crash)
    with caplog.at_level(logging.ERROR, logger="weir"):
        outcome = Toolbox([flow]).call(
            ToolCall(id="1", name="lookup", arguments={}), depth=1
        )

    assert outcome.result["error"]["code"] == "run_failed"
    logged = weir_log(caplog)
    assert "Tool flow" in logged
    assert "could not finish with [redacted:stripe]" in logged
    assert SECRET not in logged


def test_a_failed_streamed_turn_is_logged_without_the_provider_key(
    monkeypatch, caplog, alice
):
    agent = AgentFactory(created_by=alice)
    conversation = Conversation.objects.create(agent=agent, user=alice)
    turn = Turn(agent, conversation, alice, depth=0, deadline=None, api_key=SECRET)

    def broken(model, api_key):
        raise RuntimeError(f"client for {model} with key {api_key} broke")

    monkeypatch.setattr("agents.turn.provider_for", broken)
    events = queue.Queue()
    with caplog.at_level(logging.ERROR, logger="weir"):
        stream._work(turn, events, done=lambda reply: {}, shown=None)

    assert events.get_nowait()[0] == "error"
    logged = weir_log(caplog)
    assert "A streamed chat turn failed" in logged
    assert "with key [redacted:provider_key] broke" in logged
    assert SECRET not in logged
