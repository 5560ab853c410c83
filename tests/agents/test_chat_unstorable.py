"""Text a database cannot keep (NUL, lone surrogates) in chat messages: stored
as U+FFFD, and the conversation still renders through the API and the page."""

from __future__ import annotations

import pytest
from django.test import Client

from agents.chat import send_message
from agents.models import Message
from flows.engine import run_flow
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import openai_text

pytestmark = pytest.mark.django_db


def page(user, agent, conversation_id):
    client = Client()
    client.force_login(user)
    return client.get(f"/agents/{agent.pk}/?c={conversation_id}")


def test_an_agent_node_message_with_nul_placeholders_keeps_the_chat_readable(
    api, alice
):
    agent = AgentFactory(created_by=alice, model="echo:demo")
    nul = "{{ String.fromCharCode(0) }}"  # made by the template, stored nowhere else
    nodes, edges = chain(
        trigger(),
        node("ask", "agent", agent_id=str(agent.id), message=f"code {nul}0{nul} here"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, "manual")

    assert run.status == "succeeded"
    conversation_id = run.results["ask"]["conversation_id"]
    user_turn = Message.objects.get(conversation_id=conversation_id, role="user")
    assert user_turn.content == "code \ufffd0\ufffd here"
    response = api.get(f"/api/conversations/{conversation_id}")
    assert response.status_code == 200
    assert response.json()["messages"][0]["html"] == "<p>code \ufffd0\ufffd here</p>"
    assert page(alice, agent, conversation_id).status_code == 200


def test_send_message_stores_nul_and_lone_surrogates_as_replacement_characters(
    api, alice
):
    agent = AgentFactory(created_by=alice, model="echo:demo")

    reply = send_message(agent, alice, "a\x00b \ud800 \x000\x00")

    assert reply.message.content == "Echo: a\ufffdb \ufffd \ufffd0\ufffd"
    response = api.get(f"/api/conversations/{reply.conversation.pk}")
    assert response.status_code == 200
    assert page(alice, agent, reply.conversation.pk).status_code == 200


def test_a_model_reply_with_nul_is_stored_and_shown(api, llm_server, alice):
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    llm_server.queue(openai_text("odd \x000\x00 reply"))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hi"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "odd \ufffd0\ufffd reply"
    assert Message.objects.get(role="assistant").content == "odd \ufffd0\ufffd reply"
    conversation_id = response.json()["conversation_id"]
    assert page(alice, agent, conversation_id).status_code == 200


def test_tool_call_arguments_with_nul_are_stored_and_run(api, llm_server, alice):
    from flows.models import FlowRun
    from tests.factories import webhook_code_graph
    from tests.llm_server import openai_tool_call

    nodes, edges = webhook_code_graph("return {got: input.q};")
    tool = FlowFactory(created_by=alice, name="look", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    agent.tools.add(tool)
    llm_server.queue(openai_tool_call("look", {"q\x00": "a\x00b"}))
    llm_server.queue(openai_text("Looked."))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Look"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["tool_calls"][0]["arguments"] == {"q\ufffd": "a\ufffdb"}
    assert FlowRun.objects.get(trigger="agent").input == {"q\ufffd": "a\ufffdb"}
    stored = Message.objects.get(role="assistant", content="")
    assert stored.tool_calls[0]["arguments"] == {"q\ufffd": "a\ufffdb"}


def test_tool_call_arguments_with_an_infinite_number_are_stored_as_null(
    api, llm_server, alice
):
    from flows.models import FlowRun
    from tests.factories import webhook_code_graph
    from tests.llm_server import openai_tool_call

    nodes, edges = webhook_code_graph("return {got: input.n};")
    tool = FlowFactory(created_by=alice, name="count", nodes=nodes, edges=edges)
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    agent.tools.add(tool)
    call = openai_tool_call("count", {})
    call["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = (
        '{"n": 1e400, "m": 2}'
    )
    llm_server.queue(call)
    llm_server.queue(openai_text("Counted."))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Count"}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["tool_calls"][0]["arguments"] == {"n": None, "m": 2}
    assert FlowRun.objects.get(trigger="agent").status == "succeeded"
    stored = Message.objects.get(role="assistant", content="")
    assert stored.tool_calls[0]["arguments"] == {"n": None, "m": 2}
