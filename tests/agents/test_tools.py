"""What a chatting user learns of a tool run: what the model was sent, nothing more.

An agent's tools are its owner's flows. Anyone may chat with the agent, so the
caller gets the tool flow's final output (exactly the text the model read) and
never the outputs of the flow's inner nodes; the run's id only reaches the
flow's owner, the one person who can open the run.
"""

from __future__ import annotations

import json

import pytest

from agents.models import Message
from agents.tools import MAX_RESULT_CHARS
from flows.engine import run_flow
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.llm_server import openai_text, openai_tool_call

SECRET = "alice-only-123"


@pytest.fixture
def lookup_agent(alice):
    """Alice's agent whose tool keeps a secret in an inner node's output."""
    nodes, edges = chain(
        trigger(),
        code("secret", f"return {{internal_token: '{SECRET}', arg: input.q}};"),
        code("summary", "return {found: prev.arg};"),
    )
    tool = FlowFactory(created_by=alice, name="lookup", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(tool)
    return agent


def chat(client, agent, content):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": content}, format="json"
    )


def test_bob_chatting_with_alices_agent_sees_only_the_final_output_and_no_run_id(
    bob_api, lookup_agent
):
    response = chat(bob_api, lookup_agent, '/tool lookup {"q": "from bob"}')

    assert response.status_code == 200
    assert SECRET not in response.content.decode()
    [call] = response.json()["tool_calls"]
    assert call["result"] == {
        "success": True,
        "status": "succeeded",
        "output": {"found": "from bob"},
        "error": None,
    }
    assert call["run_id"] is None
    assert call["status"] == "succeeded"
    run = FlowRun.objects.get(trigger="agent")
    assert run.results["secret"]["internal_token"] == SECRET  # alice keeps it
    assert bob_api.get(f"/api/runs/{run.id}").status_code == 404


def test_bobs_conversation_history_hides_inner_outputs_and_the_run(
    bob_api, lookup_agent
):
    reply = chat(bob_api, lookup_agent, '/tool lookup {"q": "x"}').json()

    response = bob_api.get(f"/api/conversations/{reply['conversation_id']}")

    assert response.status_code == 200
    assert SECRET not in response.content.decode()
    tool_message = response.json()["messages"][2]
    assert tool_message["role"] == "tool"
    assert tool_message["run_id"] is None
    assert Message.objects.get(role="tool").run == FlowRun.objects.get()


def test_alice_chatting_with_her_own_agent_gets_her_run_id(api, lookup_agent):
    reply = chat(api, lookup_agent, '/tool lookup {"q": "mine"}').json()

    run = FlowRun.objects.get(trigger="agent")
    assert reply["tool_calls"][0]["run_id"] == str(run.id)
    history = api.get(f"/api/conversations/{reply['conversation_id']}").json()
    assert history["messages"][2]["run_id"] == str(run.id)
    assert api.get(f"/api/runs/{run.id}").status_code == 200


def test_the_model_reads_exactly_what_the_caller_is_shown(bob_api, llm_server, alice):
    nodes, edges = chain(
        trigger(), code("secret", f"return '{SECRET}';"), code("out", "return 42;")
    )
    tool = FlowFactory(created_by=alice, name="answer", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    agent.tools.add(tool)
    llm_server.queue(openai_tool_call("answer", {}))
    llm_server.queue(openai_text("42"))

    call = chat(bob_api, agent, "Answer?").json()["tool_calls"][0]

    sent = llm_server.requests[1]["json"]["messages"][-1]["content"]
    assert json.loads(sent) == call["result"]
    assert call["result"]["output"] == 42
    assert SECRET not in sent


def test_a_long_result_is_cut_for_caller_and_model_alike(bob_api, llm_server, alice):
    nodes, edges = chain(trigger(), code("big", "return 'x'.repeat(40000);"))
    tool = FlowFactory(created_by=alice, name="big", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    agent.tools.add(tool)
    llm_server.queue(openai_tool_call("big", {}))
    llm_server.queue(openai_text("Long."))

    call = chat(bob_api, agent, "Big?").json()["tool_calls"][0]

    sent = llm_server.requests[1]["json"]["messages"][-1]["content"]
    assert call["result"] == sent
    assert sent.endswith("…(truncated)")
    assert len(sent) < MAX_RESULT_CHARS + 20


def test_a_failed_tool_run_shows_its_error_but_not_inner_outputs(bob_api, alice):
    nodes, edges = chain(
        trigger(),
        code("secret", f"return '{SECRET}';"),
        code("boom", "throw new Error('no stock');"),
    )
    tool = FlowFactory(created_by=alice, name="stock", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(tool)

    response = chat(bob_api, agent, "/tool stock {}")

    assert SECRET not in response.content.decode()
    result = response.json()["tool_calls"][0]["result"]
    assert (result["success"], result["status"], result["output"]) == (
        False,
        "failed",
        None,
    )
    assert result["error"]["node_id"] == "boom"
    assert "no stock" in result["error"]["message"]


def test_an_agent_node_in_bobs_flow_cannot_relay_alices_inner_outputs(
    bob, lookup_agent
):
    nodes, edges = chain(
        trigger(),
        node(
            "ask",
            "agent",
            agent_id=str(lookup_agent.id),
            message='/tool lookup {"q": "{{ input.q }}"}',
        ),
    )
    bobs_flow = FlowFactory(created_by=bob, nodes=nodes, edges=edges)

    run = run_flow(bobs_flow, {"q": "anon"}, "webhook")

    assert run.status == "succeeded"
    assert SECRET not in json.dumps(run.results)
    assert '"found": "anon"' in run.results["ask"]["reply"]
