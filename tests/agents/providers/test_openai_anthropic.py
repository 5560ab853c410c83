"""`openai:` and `ollama:` agents through the official openai SDK, against a loopback
server speaking chat completions."""

from __future__ import annotations

from agents.models import Conversation, Message
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import openai_text

COMPLETIONS = "/v1/chat/completions"


def chat(client, agent, content, conversation_id=None):
    body = {"content": content}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return client.post(f"/api/agents/{agent.id}/chat", body, format="json")


def test_reply_comes_from_the_model_with_its_usage(api, llm_server, openai_agent):
    llm_server.queue(openai_text("Hi from GPT", prompt_tokens=21, completion_tokens=4))

    response = chat(api, openai_agent, "Hello")

    assert response.status_code == 200
    body = response.json()
    assert body["message"]["content"] == "Hi from GPT"
    assert body["usage"] == {"input_tokens": 21, "output_tokens": 4}
    stored = Message.objects.get(role="assistant")
    assert stored.content == "Hi from GPT"
    assert stored.usage == {"input_tokens": 21, "output_tokens": 4}


def test_request_carries_model_settings_system_prompt_and_key(
    api, llm_server, openai_agent
):
    llm_server.queue(openai_text("ok"))

    chat(api, openai_agent, "Hello")

    [request] = llm_server.requests
    assert request["path"] == COMPLETIONS
    assert request["headers"]["authorization"] == "Bearer sk-test-openai"
    sent = request["json"]
    assert sent["model"] == "gpt-test"
    assert sent["temperature"] == 0.2
    assert sent["max_tokens"] == 300
    assert sent["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Hello"},
    ]
    assert "tools" not in sent


def test_second_message_sends_the_stored_history(api, llm_server, openai_agent):
    llm_server.queue(openai_text("Paris."))
    llm_server.queue(openai_text("About two million."))
    first = chat(api, openai_agent, "Capital of France?").json()

    response = chat(api, openai_agent, "Population?", first["conversation_id"])

    assert response.status_code == 200
    assert llm_server.bodies(COMPLETIONS)[1]["messages"] == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Capital of France?"},
        {"role": "assistant", "content": "Paris."},
        {"role": "user", "content": "Population?"},
    ]
    assert Conversation.objects.get().messages.count() == 4


def test_the_agents_flows_are_offered_as_functions(api, bob, llm_server):
    agent = AgentFactory(owner=bob, model="openai:gpt-test")
    agent.tools.add(
        FlowFactory(
            owner=bob,
            name="Look up order!",
            description="Finds an order by number.",
            input_schema={
                "type": "object",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
        ),
        FlowFactory(owner=bob, name="Ping"),
    )
    llm_server.queue(openai_text("ok"))

    chat(api, agent, "Where is order 7?")

    assert llm_server.requests[0]["json"]["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "look_up_order",
                "description": "Finds an order by number.",
                "parameters": {
                    "type": "object",
                    "properties": {"number": {"type": "integer"}},
                    "required": ["number"],
                },
            },
        },
        {
            "type": "function",
            "function": {
                "name": "ping",
                "description": "Runs the flow 'Ping'.",
                "parameters": {"type": "object", "properties": {}},
            },
        },
    ]


def test_ollama_models_use_its_openai_endpoint_without_a_key(api, settings, llm_server):
    settings.OPENAI_API_KEY = ""
    agent = AgentFactory(model="ollama:llama3.2", system_prompt="")
    llm_server.queue(openai_text("Hello from llama"))

    response = chat(api, agent, "Hi")

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Hello from llama"
    [request] = llm_server.requests
    assert request["path"] == COMPLETIONS
    assert request["json"]["model"] == "llama3.2"
    assert request["json"]["messages"] == [{"role": "user", "content": "Hi"}]
