"""`openai:` and `anthropic:` agents through the official SDKs, against a loopback
server speaking chat completions and the Messages API.

Both providers promise the same things (the reply and its usage, the agent's
settings and key on the request, the stored history, the agent's flows as tools,
one cached SDK client); each test runs once per provider, and `Wire` holds what
differs: the path, and the shapes each protocol gives a message and a tool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from agents.models import Conversation, Message
from agents.providers import ChatRequest, anthropic, openai, provider_for
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import anthropic_text, openai_text


@dataclass(frozen=True)
class Wire:
    module: object
    model: str
    path: str
    key: str
    agent_fixture: str
    answer: Callable  # (text, input_tokens, output_tokens) -> a reply body
    turn: Callable  # (role, text) -> one message as the protocol sends it
    tool: Callable  # (name, description, parameters) -> one tool as sent
    # The agent fixture's settings as they appear in the request body.
    settings_sent: dict
    settings_absent: str


def openai_turn(role, text):
    return {"role": role, "content": text}


def anthropic_turn(role, text):
    return {"role": role, "content": [{"type": "text", "text": text}]}


WIRES = {
    "openai": Wire(
        module=openai,
        model="openai:gpt-test",
        path="/v1/chat/completions",
        key="Bearer sk-test-openai",
        agent_fixture="openai_agent",
        answer=lambda text, i, o: openai_text(
            text, prompt_tokens=i, completion_tokens=o
        ),
        turn=openai_turn,
        tool=lambda name, description, parameters: {
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": parameters,
            },
        },
        settings_sent={"model": "gpt-test", "temperature": 0.2, "max_tokens": 300},
        settings_absent="tools",
    ),
    "anthropic": Wire(
        module=anthropic,
        model="anthropic:claude-test",
        path="/v1/messages",
        key="Bearer sk-test-anthropic",
        agent_fixture="anthropic_agent",
        answer=lambda text, i, o: anthropic_text(text, input_tokens=i, output_tokens=o),
        turn=anthropic_turn,
        tool=lambda name, description, parameters: {
            "name": name,
            "description": description,
            "input_schema": parameters,
        },
        # The system prompt is its own field; the anthropic SDK no longer takes
        # a temperature (see docs/agents.md).
        settings_sent={
            "model": "claude-test",
            "system": "You are kind.",
            "max_tokens": 400,
        },
        settings_absent="temperature",
    ),
}


@pytest.fixture(params=sorted(WIRES))
def wire(request, llm_server):
    wire = WIRES[request.param]
    wire.module._client.cache_clear()
    yield wire
    wire.module._client.cache_clear()


@pytest.fixture
def agent(request, wire):
    return request.getfixturevalue(wire.agent_fixture)


def chat(client, agent, content, conversation_id=None):
    body = {"content": content}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return client.post(f"/api/agents/{agent.id}/chat", body, format="json")


def system_turns(wire, agent):
    """OpenAI sends the system prompt as the first message; Anthropic apart."""
    return [openai_turn("system", agent.system_prompt)] if wire.module is openai else []


def test_reply_comes_from_the_model_with_its_usage(api, llm_server, wire, agent):
    llm_server.queue(wire.answer("Hi from the model", 21, 4))

    response = chat(api, agent, "Hello")

    assert response.status_code == 200
    body = response.json()
    assert body["message"]["content"] == "Hi from the model"
    assert body["usage"] == {"input_tokens": 21, "output_tokens": 4, "cost_usd": None}
    stored = Message.objects.get(role="assistant")
    assert stored.content == "Hi from the model"
    assert stored.usage == {"input_tokens": 21, "output_tokens": 4}


def test_request_carries_model_settings_system_prompt_and_key(
    api, llm_server, wire, agent
):
    llm_server.queue(wire.answer("ok", 1, 1))

    chat(api, agent, "Hello")

    [request] = llm_server.requests
    assert request["path"] == wire.path
    assert request["headers"]["authorization"] == wire.key
    sent = request["json"]
    assert {key: sent.get(key) for key in wire.settings_sent} == wire.settings_sent
    assert wire.settings_absent not in sent
    assert sent["messages"] == system_turns(wire, agent) + [wire.turn("user", "Hello")]


def test_second_message_sends_the_stored_history(api, llm_server, wire, agent):
    llm_server.queue(wire.answer("Paris.", 1, 1))
    llm_server.queue(wire.answer("About two million.", 1, 1))
    first = chat(api, agent, "Capital of France?").json()

    response = chat(api, agent, "Population?", first["conversation_id"])

    assert response.status_code == 200
    assert llm_server.bodies(wire.path)[1]["messages"] == system_turns(wire, agent) + [
        wire.turn("user", "Capital of France?"),
        wire.turn("assistant", "Paris."),
        wire.turn("user", "Population?"),
    ]
    assert Conversation.objects.get().messages.count() == 4


def test_the_agents_flows_are_offered_as_tools(api, bob, llm_server, wire):
    agent = AgentFactory(created_by=bob, model=wire.model)
    agent.tools.add(
        FlowFactory(
            created_by=bob,
            name="Look up order!",
            description="Finds an order by number.",
            # No "type": the tool's parameters are always an object schema.
            input_schema={
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
        ),
        FlowFactory(created_by=bob, name="Ping"),
    )
    llm_server.queue(wire.answer("ok", 1, 1))

    chat(api, agent, "Where is order 7?")

    assert llm_server.requests[0]["json"]["tools"] == [
        wire.tool(
            "look_up_order",
            "Finds an order by number.",
            {
                "type": "object",
                "properties": {"number": {"type": "integer"}},
                "required": ["number"],
            },
        ),
        wire.tool(
            "ping", "Runs the flow 'Ping'.", {"type": "object", "properties": {}}
        ),
    ]


# One SDK client per provider configuration, whatever each call's timeout: the
# agent node's timeout is the time left in its run, different on every call, so
# clients are cached by key, base URL and retries only, and the timeout goes
# with each request.


def ask(model: str, timeout: float):
    request = ChatRequest(
        model=model.partition(":")[2],
        system="",
        messages=[{"role": "user", "content": "Hi"}],
        timeout=timeout,
    )
    return provider_for(model).complete(request)


def test_calls_with_different_timeouts_share_one_client(llm_server, wire):
    llm_server.queue(wire.answer("One", 1, 1))
    llm_server.queue(wire.answer("Two", 1, 1))

    first = ask(wire.model, 4.25)
    second = ask(wire.model, 3.5)

    assert (first.content, second.content) == ("One", "Two")
    cache = wire.module._client.cache_info()
    assert (cache.currsize, cache.misses, cache.hits) == (1, 1, 1)


def test_the_per_request_timeout_still_gives_504_on_a_shared_client(
    api, settings, llm_server, wire, agent
):
    llm_server.queue(wire.answer("Quick", 1, 1))
    ask(wire.model, 5)  # the client now exists, built without a short timeout
    settings.AGENT_TIMEOUT_SECONDS = 0.5
    llm_server.queue(wire.answer("Too late", 1, 1), delay=3)

    response = chat(api, agent, "Hello")

    assert response.status_code == 504
    assert response.json()["error"]["code"] == "timeout"
    assert "0.5 seconds" in response.json()["error"]["message"]
    assert wire.module._client.cache_info().currsize == 1
