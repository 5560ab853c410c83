"""Flows as tools: each call is a real FlowRun (trigger `agent`) on the real engine,
and its result travels back to the model through the official SDKs."""

from __future__ import annotations

import json

import pytest

from agents.models import Message
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory, webhook_code_graph
from tests.llm_server import (
    anthropic_text,
    anthropic_tool_use,
    openai_text,
    openai_tool_call,
)

ORDER_CODE = "return {order: input.number, status: 'shipped'};"


def tool_flow(owner, name="Look up order", code=ORDER_CODE):
    nodes, edges = webhook_code_graph(code)
    return FlowFactory(
        created_by=owner,
        name=name,
        description="Finds an order by number.",
        input_schema={"type": "object", "properties": {"number": {"type": "integer"}}},
        nodes=nodes,
        edges=edges,
    )


@pytest.fixture
def order_flow(alice):
    """Alice's flow: she chats (the `api` client), so she may see its runs."""
    return tool_flow(alice)


def agent_with(model, flow, **fields):
    agent = AgentFactory(created_by=flow.created_by, model=model, **fields)
    agent.tools.add(flow)
    return agent


def chat(client, agent, content, conversation_id=None):
    body = {"content": content}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return client.post(f"/api/agents/{agent.id}/chat", body, format="json")


def test_openai_tool_call_runs_the_flow_and_sends_its_result_back(
    api, llm_server, order_flow
):
    agent = agent_with("openai:gpt-test", order_flow, system_prompt="Be brief.")
    llm_server.queue(openai_tool_call("look_up_order", {"number": 7}))
    llm_server.queue(openai_text("Order 7 has shipped."))

    response = chat(api, agent, "Where is order 7?")

    assert response.status_code == 200
    body = response.json()
    assert body["message"]["content"] == "Order 7 has shipped."
    run = FlowRun.objects.get()
    assert (run.flow, run.trigger, run.status) == (order_flow, "agent", "succeeded")
    assert run.input == {"number": 7}
    [call] = body["tool_calls"]
    assert call["name"] == "look_up_order"
    assert call["arguments"] == {"number": 7}
    assert call["run_id"] == str(run.id)
    assert call["status"] == "succeeded"
    assert call["result"] == {
        "success": True,
        "status": "succeeded",
        "output": {"order": 7, "status": "shipped"},
        "error": None,
    }
    assert body["usage"] == {
        "input_tokens": 22,
        "output_tokens": 14,
        "cost_usd": None,
    }
    tool_message = Message.objects.get(role="tool")
    assert tool_message.run == run
    assert tool_message.tool_call_id == "call_1"

    follow_up = llm_server.requests[1]["json"]
    assert follow_up["messages"][:3] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Where is order 7?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "look_up_order", "arguments": '{"number": 7}'},
                }
            ],
        },
    ]
    tool_turn = follow_up["messages"][3]
    assert tool_turn["role"] == "tool"
    assert tool_turn["tool_call_id"] == "call_1"
    assert json.loads(tool_turn["content"]) == call["result"]
    assert follow_up["tools"][0]["function"]["name"] == "look_up_order"


def test_anthropic_tool_use_runs_the_flow_and_sends_a_tool_result(
    api, llm_server, order_flow
):
    agent = agent_with("anthropic:claude-test", order_flow)
    llm_server.queue(anthropic_tool_use("look_up_order", {"number": 9}))
    llm_server.queue(anthropic_text("Order 9 has shipped."))

    response = chat(api, agent, "Where is order 9?")

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Order 9 has shipped."
    run = FlowRun.objects.get(trigger="agent")
    assert run.input == {"number": 9}
    follow_up = llm_server.requests[1]["json"]["messages"]
    assert follow_up[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me check."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "look_up_order",
                "input": {"number": 9},
            },
        ],
    }
    [block] = follow_up[2]["content"]
    assert follow_up[2]["role"] == "user"
    assert block["type"] == "tool_result"
    assert block["tool_use_id"] == "toolu_1"
    assert json.loads(block["content"])["output"]["order"] == 9


def test_a_failing_tool_flow_returns_its_error_to_the_model(api, llm_server, bob):
    broken = tool_flow(bob, name="Broken", code="throw new Error('warehouse down');")
    agent = agent_with("openai:gpt-test", broken)
    llm_server.queue(openai_tool_call("broken", {}))
    llm_server.queue(openai_text("Sorry, the warehouse is down."))

    response = chat(api, agent, "Check stock")

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Sorry, the warehouse is down."
    assert response.json()["tool_calls"][0]["status"] == "failed"
    run = FlowRun.objects.get()
    assert (run.trigger, run.status) == ("agent", "failed")
    sent = json.loads(llm_server.requests[1]["json"]["messages"][-1]["content"])
    assert sent["success"] is False
    assert "warehouse down" in sent["error"]["message"]
    assert Message.objects.get(role="tool").run == run


def test_an_unknown_tool_is_answered_with_an_error_and_runs_nothing(
    api, llm_server, order_flow
):
    agent = agent_with("openai:gpt-test", order_flow)
    llm_server.queue(openai_tool_call("delete_everything", {}))
    llm_server.queue(openai_text("I cannot do that."))

    response = chat(api, agent, "Delete everything")

    assert response.status_code == 200
    assert response.json()["tool_calls"][0]["status"] == "refused"
    assert FlowRun.objects.count() == 0
    sent = json.loads(llm_server.requests[1]["json"]["messages"][-1]["content"])
    assert sent["error"]["code"] == "unknown_tool"


def test_a_flow_of_another_user_cannot_be_called_even_if_attached(
    api, llm_server, alice, bob
):
    agent = AgentFactory(created_by=bob, model="openai:gpt-test")
    agent.tools.add(tool_flow(alice, name="Alice only"))
    llm_server.queue(openai_tool_call("alice_only", {}))
    llm_server.queue(openai_text("No."))

    response = chat(api, agent, "Run Alice's flow")

    assert response.status_code == 200
    assert "tools" not in llm_server.requests[0]["json"]
    assert FlowRun.objects.count() == 0


def test_the_tool_loop_stops_after_agent_max_tool_steps(
    api, settings, llm_server, order_flow
):
    settings.AGENT_MAX_TOOL_STEPS = 2
    agent = agent_with("openai:gpt-test", order_flow)
    llm_server.queue(openai_tool_call("look_up_order", {"number": 1}, call_id="c1"))
    llm_server.queue(openai_tool_call("look_up_order", {"number": 2}, call_id="c2"))
    llm_server.queue(openai_text("Done looking."))

    response = chat(api, agent, "Look up everything")

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Done looking."
    assert len(response.json()["tool_calls"]) == 2
    assert FlowRun.objects.filter(trigger="agent").count() == 2
    # The last call still describes the tools (the history mentions them) but
    # forbids calling them.
    choices = [r["json"].get("tool_choice") for r in llm_server.requests]
    assert choices == [None, None, "none"]
    assert all(len(r["json"]["tools"]) == 1 for r in llm_server.requests)


def test_tool_turns_are_part_of_the_history_of_the_next_message(
    api, llm_server, order_flow
):
    agent = agent_with("openai:gpt-test", order_flow, system_prompt="")
    llm_server.queue(openai_tool_call("look_up_order", {"number": 7}))
    llm_server.queue(openai_text("Shipped."))
    llm_server.queue(openai_text("You are welcome."))
    first = chat(api, agent, "Where is order 7?").json()

    chat(api, agent, "Thanks", first["conversation_id"])

    roles = [m["role"] for m in llm_server.requests[2]["json"]["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "user"]


def test_echo_model_calls_a_tool_by_flow_name(api, order_flow):
    agent = agent_with("echo:demo", order_flow)

    response = chat(api, agent, '/tool Look up order {"number": 5}')

    assert response.status_code == 200
    run = FlowRun.objects.get()
    assert (run.trigger, run.input) == ("agent", {"number": 5})
    content = response.json()["message"]["content"]
    assert content.startswith("Tool look_up_order returned: ")
    assert json.loads(content.split(": ", 1)[1])["output"]["order"] == 5


def test_conversation_shows_tool_messages_with_their_run(api, order_flow):
    agent = agent_with("echo:demo", order_flow)
    reply = chat(api, agent, '/tool look_up_order {"number": 5}').json()

    response = api.get(f"/api/conversations/{reply['conversation_id']}")

    messages = response.json()["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "assistant"]
    assert messages[1]["tool_calls"][0]["name"] == "look_up_order"
    assert messages[2]["run_id"] == str(FlowRun.objects.get().id)
    assert messages[2]["tool_name"] == "look_up_order"


def test_anthropic_last_step_forbids_tool_use(api, settings, llm_server, order_flow):
    settings.AGENT_MAX_TOOL_STEPS = 1
    agent = agent_with("anthropic:claude-test", order_flow)
    llm_server.queue(anthropic_tool_use("look_up_order", {"number": 1}))
    llm_server.queue(anthropic_text("That is all I may look up."))

    response = chat(api, agent, "Look up everything")

    assert response.status_code == 200
    assert FlowRun.objects.count() == 1
    last = llm_server.requests[-1]["json"]
    assert last["tool_choice"] == {"type": "none"}
    assert last["tools"][0]["name"] == "look_up_order"


def test_tool_turns_are_retold_as_text_once_the_agent_has_no_tools(
    api, llm_server, order_flow
):
    agent = agent_with("anthropic:claude-test", order_flow)
    llm_server.queue(anthropic_tool_use("look_up_order", {"number": 4}))
    llm_server.queue(anthropic_text("Shipped."))
    llm_server.queue(anthropic_text("Anything else?"))
    first = chat(api, agent, "Order 4?").json()
    agent.tools.clear()

    response = chat(api, agent, "Thanks", first["conversation_id"])

    assert response.status_code == 200
    sent = llm_server.requests[-1]["json"]
    assert "tools" not in sent
    blocks = [block for turn in sent["messages"] for block in turn["content"]]
    assert {block["type"] for block in blocks} == {"text"}
    assert (
        blocks[1]["text"]
        == 'Let me check. [Called tool look_up_order with {"number": 4}]'
    )
    assert blocks[2]["text"].startswith("[Tool look_up_order returned: {")
