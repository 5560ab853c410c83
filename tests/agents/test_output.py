"""An agent's output_schema (agents/output.py): OpenAI's structured outputs and
Anthropic's forced tool on the wire, the reply checked with jsonschema, the
parsed object in the API's reply and the agent node's output."""

from __future__ import annotations

import pytest

from agents.models import Message
from flows.engine import run_flow
from tests.agents.test_chat import chat, tool_flow
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import anthropic_text, openai_text

WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "celsius": {"type": "number"}},
    "required": ["city", "celsius"],
}


def anthropic_output(data: dict) -> dict:
    """A Messages answer calling the forced output tool with `data`."""
    answer = anthropic_text("")
    answer["content"] = [
        {
            "type": "tool_use",
            "id": "toolu_9",
            "name": "structured_output",
            "input": data,
        }
    ]
    answer["stop_reason"] = "tool_use"
    return answer


@pytest.mark.parametrize("model", ["openai:gpt-test", "ollama:llama3.2"])
def test_openai_asks_for_structured_output_and_the_reply_is_parsed(
    api, alice, llm_server, model
):
    # Ollama speaks the same protocol (its OpenAI-compatible /v1), so the same.
    agent = AgentFactory(created_by=alice, model=model, output_schema=WEATHER)
    llm_server.queue(openai_text('{"city": "Paris", "celsius": 21}'))

    response = chat(api, agent, "Weather in Paris?")

    assert response.status_code == 200
    assert response.json()["data"] == {"city": "Paris", "celsius": 21}
    sent = llm_server.requests[0]["json"]
    assert sent["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "reply", "schema": WEATHER},
    }


def test_anthropic_answers_through_a_forced_tool(api, alice, llm_server):
    agent = AgentFactory(
        created_by=alice, model="anthropic:claude-test", output_schema=WEATHER
    )
    llm_server.queue(anthropic_output({"city": "Oslo", "celsius": -3}))

    response = chat(api, agent, "Weather in Oslo?")

    assert response.status_code == 200
    assert response.json()["data"] == {"city": "Oslo", "celsius": -3}
    assert response.json()["message"]["content"] == '{"city": "Oslo", "celsius": -3}'
    sent = llm_server.requests[0]["json"]
    assert sent["tools"][-1]["name"] == "structured_output"
    assert sent["tools"][-1]["input_schema"] == WEATHER
    assert sent["tool_choice"] == {"type": "tool", "name": "structured_output"}


def test_anthropic_with_tools_may_call_them_or_answer(api, alice, llm_server):
    agent = AgentFactory(
        created_by=alice, model="anthropic:claude-test", output_schema=WEATHER
    )
    agent.tools.add(tool_flow(alice))
    llm_server.queue(anthropic_output({"city": "Rome", "celsius": 25}))

    response = chat(api, agent, "Weather in Rome?")

    assert response.json()["data"] == {"city": "Rome", "celsius": 25}
    sent = llm_server.requests[0]["json"]
    assert [tool["name"] for tool in sent["tools"]] == [
        "look_up_order",
        "structured_output",
    ]
    assert sent["tool_choice"] == {"type": "any"}


@pytest.mark.parametrize(
    "reply, where",
    [
        ("It is sunny.", "not JSON"),
        ('{"city": "Paris"}', "'celsius' is a required property"),
        ('{"city": "Paris", "celsius": "warm"}', "at celsius"),
    ],
)
def test_a_reply_that_does_not_match_is_502_invalid_output(
    api, alice, llm_server, reply, where
):
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-test", output_schema=WEATHER
    )
    llm_server.queue(openai_text(reply))

    response = chat(api, agent, "Weather?")

    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "invalid_output"
    assert where in error["message"]
    stored = Message.objects.get(role="assistant")
    assert stored.content == reply  # kept to read, left out of the next history
    assert stored.error["code"] == "invalid_output"


def test_without_a_schema_the_reply_has_no_data_and_nothing_is_asked(
    api, alice, llm_server
):
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    llm_server.queue(openai_text("Sunny."))

    response = chat(api, agent, "Weather?")

    assert "data" not in response.json()
    assert "response_format" not in llm_server.requests[0]["json"]


def agent_node_flow(owner, agent, message):
    nodes, edges = chain(
        trigger(), node("ask", "agent", agent_id=str(agent.id), message=message)
    )
    return FlowFactory(created_by=owner, nodes=nodes, edges=edges)


def test_the_agent_node_outputs_the_parsed_object(alice):
    agent = AgentFactory(created_by=alice, model="echo:demo", output_schema=WEATHER)
    flow = agent_node_flow(alice, agent, '{"city": "Lima", "celsius": 19}')

    run = run_flow(flow, {}, "manual")

    assert run.status == "succeeded"
    assert run.as_result()["results"]["ask"]["data"] == {"city": "Lima", "celsius": 19}


def test_the_agent_node_fails_with_invalid_output(alice):
    agent = AgentFactory(created_by=alice, model="echo:demo", output_schema=WEATHER)
    flow = agent_node_flow(alice, agent, "What is the weather?")

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "invalid_output"


@pytest.mark.parametrize(
    "schema, says",
    [
        ({"type": "array"}, "root must be"),
        ({"type": "object", "properties": {"a": {"type": 7}}}, "Not a valid JSON"),
        ("object", "Must be a JSON Schema object"),
    ],
)
def test_the_owner_saves_only_an_object_schema(api, alice, schema, says):
    agent = AgentFactory(created_by=alice, shared=False)

    response = api.patch(
        f"/api/agents/{agent.id}", {"output_schema": schema}, format="json"
    )

    assert response.status_code == 400
    assert says in response.json()["error"]["details"]["output_schema"][0]


def test_the_owner_sets_and_clears_the_schema(api, alice):
    agent = AgentFactory(created_by=alice, shared=False)

    saved = api.patch(
        f"/api/agents/{agent.id}", {"output_schema": WEATHER}, format="json"
    )
    cleared = api.patch(
        f"/api/agents/{agent.id}", {"output_schema": None}, format="json"
    )

    assert saved.status_code == 200
    assert saved.json()["output_schema"] == WEATHER
    assert cleared.json()["output_schema"] is None
