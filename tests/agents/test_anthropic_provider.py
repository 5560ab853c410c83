"""`anthropic:` agents through the official anthropic SDK, against a loopback server
speaking the Messages API."""

from __future__ import annotations

from agents.models import Message
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import anthropic_text

MESSAGES = "/v1/messages"


def chat(client, agent, content, conversation_id=None):
    body = {"content": content}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return client.post(f"/api/agents/{agent.id}/chat", body, format="json")


def test_reply_comes_from_the_model_with_its_usage(api, llm_server, anthropic_agent):
    llm_server.queue(anthropic_text("Hi from Claude", input_tokens=30, output_tokens=6))

    response = chat(api, anthropic_agent, "Hello")

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Hi from Claude"
    assert response.json()["usage"] == {"input_tokens": 30, "output_tokens": 6}
    assert Message.objects.get(role="assistant").content == "Hi from Claude"


def test_request_carries_system_prompt_model_settings_and_key(
    api, llm_server, anthropic_agent
):
    llm_server.queue(anthropic_text("ok"))

    chat(api, anthropic_agent, "Hello")

    [request] = llm_server.requests
    assert request["path"] == MESSAGES
    assert request["headers"]["authorization"] == "Bearer sk-test-anthropic"
    sent = request["json"]
    assert sent["model"] == "claude-test"
    assert sent["system"] == "You are kind."
    assert sent["max_tokens"] == 400
    # The anthropic SDK no longer takes a temperature; see docs/agents.md.
    assert "temperature" not in sent
    assert sent["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello"}]}
    ]


def test_second_message_sends_the_stored_history(api, llm_server, anthropic_agent):
    llm_server.queue(anthropic_text("Paris."))
    llm_server.queue(anthropic_text("About two million."))
    first = chat(api, anthropic_agent, "Capital of France?").json()

    chat(api, anthropic_agent, "Population?", first["conversation_id"])

    assert llm_server.bodies(MESSAGES)[1]["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Capital of France?"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "Paris."}]},
        {"role": "user", "content": [{"type": "text", "text": "Population?"}]},
    ]


def test_the_agents_flows_are_offered_as_tools(api, bob, llm_server):
    agent = AgentFactory(owner=bob, model="anthropic:claude-test")
    agent.tools.add(
        FlowFactory(
            owner=bob,
            name="Look up order",
            description="Finds an order by number.",
            input_schema={"properties": {"number": {"type": "integer"}}},
        )
    )
    llm_server.queue(anthropic_text("ok"))

    chat(api, agent, "Where is order 7?")

    assert llm_server.requests[0]["json"]["tools"] == [
        {
            "name": "look_up_order",
            "description": "Finds an order by number.",
            "input_schema": {
                "type": "object",
                "properties": {"number": {"type": "integer"}},
            },
        }
    ]
