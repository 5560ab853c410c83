"""A visitor's streamed reply through the server production runs (`python -m
config.serve`): the events a visitor sees, and what they never see (tool
results, runs, cost)."""

from __future__ import annotations

import json

import pytest

from agents.models import Conversation
from tests.agents.public.helpers import published_agent
from tests.agents.test_chat import tool_flow
from tests.llm_server import openai_text, openai_tool_call, provider_settings


def events_of(text: str) -> list[tuple[str, dict]]:
    events = []
    for frame in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in frame.split("\n") if ": " in line)
        if "event" in fields:
            events.append((fields["event"], json.loads(fields["data"])))
    return events


@pytest.fixture
def web(granian, llm_server):
    """The production server, its model calls going to the tests' provider."""
    return granian(threads=4, AGENT_MAX_RETRIES=0, **provider_settings(llm_server.url))


def post(web, path: str, body: dict, headers: dict):
    answer = web.post_json(path, body, headers)
    return answer, answer.body.decode()


def visitor_token(web, agent) -> str:
    answer, text = post(web, f"/c/{agent.public_slug}/session", {}, {})
    assert answer.status == 201
    return json.loads(text)["token"]


def test_a_visitor_sees_the_reply_stream_and_only_tool_names(web, alice, llm_server):
    agent = published_agent(model="openai:gpt-test", created_by=alice)
    agent.tools.add(tool_flow(alice))
    llm_server.queue(openai_tool_call("look_up_order", {"number": 7}))
    llm_server.queue(openai_text("Order 7 has shipped."))

    response, text = post(
        web,
        "/c/helper/chat",
        {"content": "Where is order 7?"},
        {
            "Accept": "text/event-stream",
            "Content-Type": "application/json",
            "X-Visitor-Token": visitor_token(web, agent),
        },
    )

    assert response.status == 200
    assert response.headers["content-type"] == "text/event-stream"
    events = events_of(text)
    names = [name for name, _ in events]
    assert names[0] == "start" and names[-1] == "done"
    assert ("tool_call", {"name": "look_up_order"}) in events
    assert "tool_result" not in names and "usage" not in names
    tokens = "".join(data["text"] for name, data in events if name == "token")
    assert tokens == "Order 7 has shipped."
    done = events[-1][1]
    assert done["message"]["content"] == "Order 7 has shipped."
    assert done["tools_used"] == ["look_up_order"]
    assert "shipped" not in json.dumps(done["tools_used"])
    conversation = Conversation.objects.get()
    assert conversation.user is None and conversation.visitor
    assert str(conversation.pk) == events[0][1]["conversation_id"]


def test_a_refused_stream_is_the_json_envelope(web):
    agent = published_agent(visitor_rate="1/min")
    headers = {
        "Accept": "text/event-stream",
        "Content-Type": "application/json",
        "X-Visitor-Token": visitor_token(web, agent),
    }
    first, _ = post(web, "/c/helper/chat", {"content": "one"}, headers)
    assert first.status == 200

    refused, text = post(web, "/c/helper/chat", {"content": "two"}, headers)

    assert refused.status == 429
    assert json.loads(text)["error"]["code"] == "throttled"


def test_a_streamed_providers_error_does_not_reach_the_visitor(web, alice, llm_server):
    agent = published_agent(model="openai:gpt-test", created_by=alice)
    secret = "Incorrect API key provided: sk-proj-****7f3a (org-internal-team)"
    llm_server.queue({"error": {"message": secret}}, status=401)

    response, text = post(
        web,
        "/c/helper/chat",
        {"content": "Hello"},
        {
            "Accept": "text/event-stream",
            "Content-Type": "application/json",
            "X-Visitor-Token": visitor_token(web, agent),
        },
    )

    name, error = events_of(text)[-1]
    assert name == "error" and error["code"] == "upstream_error"
    assert error["message"] and error["conversation_id"]
    assert "sk-proj" not in text and "org-internal" not in text
