"""POST /api/agents/:id/chat with `Accept: text/event-stream`, over a live server.

A real HTTP server (the turn runs on its own thread, which a test transaction
would hide rows from) and a real HTTP client that reads the events as they come.
"""

from __future__ import annotations

import http.client
import json
import time
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from django.conf import settings as django_settings
from django.test import Client

from agents.models import Conversation, Message
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import (
    anthropic_text,
    anthropic_tool_use,
    openai_text,
    openai_tool_call,
)

CSRF = "a" * 32


class Live:
    """Alice's session on the live server, through the standard library's
    HTTP client (which reads a body as it arrives)."""

    def __init__(self, url: str, session: str):
        self.address = urlsplit(url).netloc
        self.headers = {
            "Cookie": f"{django_settings.SESSION_COOKIE_NAME}={session}; "
            f"csrftoken={CSRF}",
            "X-CSRFToken": CSRF,
            "Content-Type": "application/json",
        }

    def open(self, path: str, body: dict, headers: dict | None = None):
        connection = http.client.HTTPConnection(self.address, timeout=10)
        connection.request(
            "POST", path, json.dumps(body), {**self.headers, **(headers or {})}
        )
        return connection, connection.getresponse()

    def post(self, path: str, json: dict, headers: dict | None = None):
        connection, response = self.open(path, json, headers)
        text = response.read().decode()
        connection.close()
        return SimpleNamespace(
            status_code=response.status,
            headers={k.lower(): v for k, v in response.getheaders()},
            text=text,
            json=lambda: __import__("json").loads(text),
        )


@pytest.fixture
def live(live_server, transactional_db, alice):
    client = Client()
    client.force_login(alice)
    return Live(
        live_server.url, client.cookies[django_settings.SESSION_COOKIE_NAME].value
    )


def events_of(response) -> list[tuple[str, dict]]:
    """The (event, data) pairs of an SSE body, checking each frame's framing."""
    events = []
    for block in response.text.split("\n\n"):
        if not block or block.startswith(":"):
            continue
        lines = dict(line.split(": ", 1) for line in block.split("\n"))
        assert set(lines) == {"id", "event", "data"}, block
        events.append((lines["event"], json.loads(lines["data"])))
    return events


def stream(http, agent, content, **extra):
    return http.post(
        f"/api/agents/{agent.id}/chat",
        json={"content": content, **extra},
        headers={"Accept": "text/event-stream"},
    )


def test_echo_streams_word_by_word_then_done_with_todays_reply(live, alice):
    agent = AgentFactory(model="echo:demo", created_by=alice)

    response = stream(live, agent, "one two three")

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["cache-control"] == "no-cache"
    events = events_of(response)
    names = [name for name, _ in events]
    assert names == ["start", "token", "token", "token", "token", "usage", "done"]
    assert "".join(data["text"] for name, data in events if name == "token") == (
        "Echo: one two three"
    )
    conversation = Conversation.objects.get()
    assert events[0][1] == {
        "conversation_id": str(conversation.pk),
        "message_id": str(conversation.messages.first().pk),
    }
    done = events[-1][1]
    assert done["message"]["content"] == "Echo: one two three"
    assert done["conversation_id"] == str(conversation.pk)
    ids = [
        int(line.split(": ")[1])
        for line in response.text.split("\n")
        if line.startswith("id: ")
    ]
    assert ids == list(range(1, len(events) + 1))


def test_without_the_header_the_answer_is_the_same_json_as_the_done_event(live, alice):
    agent = AgentFactory(model="echo:demo", created_by=alice)

    plain = live.post(f"/api/agents/{agent.id}/chat", json={"content": "Hi"})
    streamed = stream(
        live, agent, "Hi", conversation_id=plain.json()["conversation_id"]
    )

    assert plain.headers["content-type"] == "application/json"
    body = plain.json()
    assert set(body) == {"conversation_id", "message", "tool_calls", "usage"}
    done = events_of(streamed)[-1][1]
    assert set(done) == set(body)
    assert set(done["message"]) == set(body["message"])


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_tool_calls_stream_with_arguments_split_across_chunks(
    live, alice, llm_server, provider
):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(model=f"{provider}:test-model", created_by=alice)
    agent.tools.add(flow)
    if provider == "openai":
        llm_server.queue(openai_tool_call("say_hello", {"name": "Ada Lovelace"}))
        llm_server.queue(openai_text("Greeted Ada, done."))
    else:
        llm_server.queue(anthropic_tool_use("say_hello", {"name": "Ada Lovelace"}))
        llm_server.queue(anthropic_text("Greeted Ada, done."))

    response = stream(live, agent, "Greet Ada")

    events = events_of(response)
    names = [name for name, _ in events]
    assert names[0] == "start"
    assert names.index("tool_call") < names.index("tool_result") < names.index("done")
    call = dict(events)["tool_call"]
    assert (call["name"], call["arguments"]) == ("say_hello", {"name": "Ada Lovelace"})
    result = dict(events)["tool_result"]
    assert result["status"] == "succeeded"
    assert result["run_id"]  # alice owns the flow
    tokens = "".join(data["text"] for name, data in events if name == "token")
    assert tokens.endswith("Greeted Ada, done.")
    assert names[-1] == "done"
    assert dict(events)["done"]["tool_calls"][0]["arguments"] == {
        "name": "Ada Lovelace"
    }
    # The SDK really asked for a stream.
    assert all(
        body["stream"] is True for body in (r["json"] for r in llm_server.requests)
    )


def test_a_provider_failure_is_an_error_event_and_the_turn_is_stored(
    live, alice, llm_server
):
    agent = AgentFactory(model="openai:test-model", created_by=alice)
    llm_server.queue({"error": {"message": "boom"}}, status=500)

    events = events_of(stream(live, agent, "Hello"))

    assert [name for name, _ in events] == ["start", "error"]
    error = events[1][1]
    assert error["code"] == "upstream_error"
    conversation = Conversation.objects.get()
    assert error["conversation_id"] == str(conversation.pk)
    assert conversation.messages.last().error["code"] == "upstream_error"


def test_refusals_before_the_stream_are_json_envelopes(live, alice, settings):
    agent = AgentFactory(model="echo:demo", created_by=alice)

    blank = stream(live, agent, "   ")

    assert blank.status_code == 400
    assert blank.headers["content-type"] == "application/json"
    assert blank.json()["error"]["code"] == "validation_error"
    assert not Message.objects.exists()


def test_a_caller_who_disconnects_leaves_a_cancelled_partial_reply(
    live, alice, llm_server
):
    agent = AgentFactory(model="openai:test-model", created_by=alice)
    words = " ".join(f"word{n}" for n in range(40))
    llm_server.queue(openai_text(words), chunk_delay=0.1)

    connection, response = live.open(
        f"/api/agents/{agent.id}/chat",
        {"content": "Talk"},
        {"Accept": "text/event-stream"},
    )
    seen = ""
    while seen.count("event: token") < 3:
        line = response.readline().decode()
        assert line, f"the stream ended before three tokens: {seen!r}"
        seen += line
    response.close()  # the last reference to the socket: the connection closes
    connection.close()

    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        reply = Message.objects.filter(role="assistant").first()
        if reply is not None:
            break
        time.sleep(0.1)
    assert reply is not None, "no partial reply was stored"
    assert reply.error["code"] == "cancelled"
    assert reply.content.startswith("word0 word1")
    assert len(reply.content) < len(words)
    # The model's stream was closed too, not read to its end.
    deadline = time.monotonic() + 5
    while llm_server.disconnects == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert llm_server.disconnects == 1


def test_a_ping_keeps_the_stream_alive_while_the_model_thinks(
    live, alice, llm_server, settings
):
    settings.AGENT_STREAM_PING_SECONDS = 0.2
    agent = AgentFactory(model="openai:test-model", created_by=alice)
    llm_server.queue(openai_text("Finally."), delay=1.0)

    response = stream(live, agent, "Think")

    before_first_token = response.text.split("event: token")[0]
    assert ": ping\n\n" in before_first_token
    assert events_of(response)[-1][0] == "done"
