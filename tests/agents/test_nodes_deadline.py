"""The run's time limit bounds agent nodes: every model call, every tool run,
agents nested through tool flows; and one message makes a bounded number of
tool calls.

Independent of machine load: what would happen without the limit (a delay or
a model answer of a minute) is far from what happens with it (a few seconds),
so the bounds are wide, and the runs' statuses, not their times, carry the
finer claims."""

from __future__ import annotations

import json
import time

import pytest

from agents.models import Message
from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import openai_text, openai_tool_call

pytestmark = pytest.mark.django_db

# Without the run's limit, these tests would wait a minute; with it, a few
# seconds. A loaded machine stays far below this bound.
UNBOUNDED = 60
BOUND = 30


def agent_node(agent, message: str) -> dict:
    return node("ask", "agent", agent_id=str(agent.id), message=message)


def flow_of(owner, name, *nodes):
    node_list, edges = chain(trigger(), *nodes)
    return FlowFactory(created_by=owner, name=name, nodes=node_list, edges=edges)


def agent_with_tool(owner, tool, model="echo:demo"):
    agent = AgentFactory(created_by=owner, model=model)
    agent.tools.add(tool)
    return agent


@pytest.fixture
def warm(alice):
    """Run an agent node once, so start-up costs (the template sandbox's workers)
    do not count against the timed runs."""
    run_flow(flow_of(alice, "warm", agent_node(AgentFactory(), "hi")), {}, "manual")


def timed_run(flow):
    started = time.monotonic()
    run = run_flow(flow, {}, "manual")
    return run, time.monotonic() - started


@pytest.mark.timing
def test_agents_nested_through_tool_flows_end_with_the_outer_run(settings, alice, warm):
    settings.RUN_TIMEOUT_SECONDS = 3
    inner = flow_of(alice, "inner", node("wait", "delay", ms=UNBOUNDED * 1000))
    inner_agent = agent_with_tool(alice, inner)
    middle = flow_of(alice, "middle", agent_node(inner_agent, "/tool inner {}"))
    outer_agent = agent_with_tool(alice, middle)
    outer = flow_of(alice, "outer", agent_node(outer_agent, "/tool middle {}"))

    run, elapsed = timed_run(outer)

    assert run.status == "timed_out"
    assert run.error["code"] == "timeout"
    assert elapsed < BOUND  # a tool run with a limit of its own would wait on
    tool_runs = FlowRun.objects.filter(trigger="agent")
    assert {(r.flow.name, r.status) for r in tool_runs} == {
        ("middle", "timed_out"),
        ("inner", "timed_out"),
    }
    failed_turn = Message.objects.filter(error__isnull=False).first()
    assert failed_turn.error["code"] == "timeout"


# transactional_db: the tool's run lasts past deferred.STORE_AFTER_SECONDS, so the
# lease thread inserts it from its own connection, which on SQLite would wait out
# the busy timeout behind the test's open transaction and leave no row to check.
@pytest.mark.timing
def test_a_tool_run_gets_only_the_time_left_in_the_outer_run(
    settings, alice, warm, transactional_db
):
    # 2 s of the outer run's 5 are spent when the tool starts: with the time
    # left (3 s) its 4 s delay times out; with a 5 s limit of its own it would
    # succeed. The 3 s margin absorbs a slow start of the agent node.
    settings.RUN_TIMEOUT_SECONDS = 5
    slow_tool = flow_of(alice, "slow", node("wait", "delay", ms=4000))
    agent = agent_with_tool(alice, slow_tool)
    outer = flow_of(
        alice, "outer", node("pause", "delay", ms=2000), agent_node(agent, "/tool slow")
    )

    run, elapsed = timed_run(outer)

    assert run.status == "timed_out"
    tool_run = FlowRun.objects.get(trigger="agent")
    assert tool_run.status == "timed_out"
    assert tool_run.error["code"] == "run_timeout"
    assert elapsed < BOUND


@pytest.mark.timing
def test_each_model_call_waits_only_for_the_time_left(
    settings, alice, llm_server, warm
):
    settings.RUN_TIMEOUT_SECONDS = 3
    tool = flow_of(alice, "pause", node("wait", "delay", ms=1000))
    agent = agent_with_tool(alice, tool, model="openai:gpt-test")
    llm_server.queue(openai_tool_call("pause", {}))
    llm_server.queue(openai_text("Too late."), delay=UNBOUNDED)
    outer = flow_of(alice, "outer", agent_node(agent, "Pause, then talk"))

    run, elapsed = timed_run(outer)

    assert run.status == "timed_out"
    assert (run.error["node_id"], run.error["code"]) == ("ask", "timeout")
    assert elapsed < BOUND
    assert len(llm_server.requests) == 2
    assert not Message.objects.filter(content="Too late.").exists()


@pytest.mark.timing
def test_the_sdk_does_not_retry_past_the_runs_deadline(
    settings, alice, llm_server, warm
):
    """A timed-out attempt retried would wait the time left a second time."""
    settings.RUN_TIMEOUT_SECONDS = 2
    settings.AGENT_MAX_RETRIES = 2
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    for _ in range(3):
        llm_server.queue(openai_text("Too late."), delay=UNBOUNDED)
    outer = flow_of(alice, "outer", agent_node(agent, "Talk"))

    run, elapsed = timed_run(outer)

    assert run.status == "timed_out"
    assert elapsed < BOUND
    assert len(llm_server.requests) == 1


def openai_tool_calls(*names: str) -> dict:
    """A chat.completion asking for several function calls at once."""
    answer = openai_tool_call(names[0], {})
    answer["choices"][0]["message"]["tool_calls"] = [
        {
            "id": f"call_{n}",
            "type": "function",
            "function": {"name": name, "arguments": "{}"},
        }
        for n, name in enumerate(names, start=1)
    ]
    return answer


def test_tool_calls_beyond_the_limit_are_refused_and_run_nothing(
    api, settings, llm_server, alice
):
    settings.AGENT_MAX_TOOL_STEPS = 2
    tool = flow_of(alice, "count", node("wait", "delay", ms=1))
    agent = agent_with_tool(alice, tool, model="openai:gpt-test")
    llm_server.queue(openai_tool_calls("count", "count", "count"))
    llm_server.queue(openai_text("Counted twice."))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Count"}, format="json"
    )

    assert response.status_code == 200
    calls = response.json()["tool_calls"]
    assert [call["status"] for call in calls] == ["succeeded", "succeeded", "refused"]
    assert calls[2]["result"]["error"]["code"] == "too_many_tool_calls"
    assert calls[2]["run_id"] is None
    assert FlowRun.objects.filter(trigger="agent").count() == 2
    # Every call got an answer (the protocol requires it), and the next model
    # call may not ask for more.
    follow_up = llm_server.requests[1]["json"]
    tool_turns = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_turns] == ["call_1", "call_2", "call_3"]
    assert json.loads(tool_turns[2]["content"])["success"] is False
    assert follow_up["tool_choice"] == "none"
    assert Message.objects.filter(role="tool").count() == 3
