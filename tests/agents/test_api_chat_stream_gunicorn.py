"""Streaming through the server `make run` uses: gunicorn's threads (WSGI) pass each
event on as it is written, and notice a caller who leaves."""

from __future__ import annotations

import http.client
import json
import time

import pytest

from agents.models import Message
from tests.factories import AgentFactory
from tests.gunicorn_server import session_headers


def open_stream(server, agent, user, content):
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    connection.request(
        "POST",
        f"/api/agents/{agent.id}/chat",
        json.dumps({"content": content}),
        {
            **session_headers(user),
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        },
    )
    return connection, connection.getresponse()


# Asserts how long requests take while its own server is loaded: `timing`, so
# `make test` runs it alone, not beside another worker's servers.
@pytest.mark.timing
def test_gunicorn_sends_the_first_token_long_before_the_turn_ends(gunicorn, alice):
    server = gunicorn(threads=4, ECHO_WORD_DELAY_MS=300)
    agent = AgentFactory(model="echo:demo", created_by=alice)
    started = time.monotonic()

    connection, response = open_stream(server, agent, alice, "a b c d e f g h")
    lines = []
    first_token_at = None
    for raw in response:
        line = raw.decode()
        lines.append(line)
        if line.startswith("event: token") and first_token_at is None:
            first_token_at = time.monotonic() - started
    ended_at = time.monotonic() - started
    connection.close()

    assert response.status == 200
    assert "event: done\n" in lines
    # Nine words 300 ms apart: about 2.4 s in all, the first at once.
    assert ended_at > 2.0
    assert first_token_at < 1.0


def test_gunicorn_notices_a_caller_who_leaves_and_the_reply_is_cancelled(
    gunicorn, alice
):
    server = gunicorn(threads=4, ECHO_WORD_DELAY_MS=200)
    agent = AgentFactory(model="echo:demo", created_by=alice)
    content = " ".join(f"w{n}" for n in range(40))

    connection, response = open_stream(server, agent, alice, content)
    seen = ""
    while seen.count("event: token") < 3:
        line = response.readline().decode()
        assert line, f"the stream ended before three tokens: {seen!r}"
        seen += line
    response.close()
    connection.close()

    deadline = time.monotonic() + 15
    reply = None
    while time.monotonic() < deadline and reply is None:
        reply = Message.objects.filter(role="assistant").first()
        time.sleep(0.2)
    assert reply is not None and reply.error["code"] == "cancelled"
    assert reply.content.startswith("Echo: w0")
    assert "w39" not in reply.content
