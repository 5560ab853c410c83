"""A streamed chat turn before its first token (issue 25, the measured target).

The request's thread reads the session, the user, the agent with the caller's
role and the agent's tools, starts the turn's thread (its model call) and then
stores the user's message in one transaction while that call is on its way;
the turn writes nothing before the message is stored. The role is still read
live on every request. Rows must be committed for the turn's thread to see
them, hence `transactional_db`.
"""

from __future__ import annotations

import json
import threading

import pytest
from django.db import OperationalError
from django.test import Client

from accounts.workspaces.models import Membership, Workspace
from agents.models import Conversation, Message
from core.http.admission import SLOTS
from tests.factories import AgentFactory, FlowFactory

STREAM = {"HTTP_ACCEPT": "text/event-stream"}


@pytest.fixture
def client(transactional_db, alice, settings):
    settings.ECHO_WORD_DELAY_MS = 0
    client = Client(raise_request_exception=False)
    client.force_login(alice)
    return client


@pytest.fixture
def team(alice):
    """A workspace where alice is a runner (she may chat, not edit)."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="runner")
    return team


def chat(client, agent, content="Hello", **headers):
    return client.post(
        f"/api/agents/{agent.id}/chat",
        {"content": content},
        content_type="application/json",
        **headers,
    )


def events(response) -> list[tuple[str, dict]]:
    body = b"".join(response.streaming_content).decode()
    response.close()
    pairs = []
    for block in body.split("\n\n"):
        if block and not block.startswith(":"):
            lines = dict(line.split(": ", 1) for line in block.split("\n"))
            pairs.append((lines["event"], json.loads(lines["data"])))
    return pairs


def join_turns() -> None:
    for thread in threading.enumerate():
        if thread.name == "chat-turn":
            thread.join(timeout=10)


def test_a_streamed_turn_makes_four_reads_and_one_commit_before_its_model_call(
    client, alice, django_assert_max_num_queries
):
    agent = AgentFactory(created_by=alice, model="echo:demo", shared=False)
    FlowFactory(created_by=alice, name="Lookup").agents.add(agent)

    # The session, the user, the agent with alice's role, its tools, then the
    # new conversation and the user's message in one transaction (one
    # commit): the turn's own statements (its reply, the price) come after
    # the first token, on the turn's thread.
    with django_assert_max_num_queries(8) as captured:
        response = chat(client, agent, **STREAM)
    statements = [query["sql"].split()[0] for query in captured.captured_queries]
    assert statements.count("SELECT") == 4
    assert statements[-4:] == ["BEGIN", "INSERT", "INSERT", "COMMIT"]

    received = events(response)
    assert [name for name, _ in received][0] == "start"
    assert received[-1][0] == "done"
    assert received[-1][1]["message"]["content"] == "Echo: Hello"
    conversation = Conversation.objects.get()
    assert str(conversation.pk) == received[0][1]["conversation_id"]
    assert [m.role for m in conversation.messages.all()] == ["user", "assistant"]
    assert str(conversation.messages.first().pk) == received[0][1]["message_id"]


def test_an_agent_without_tools_is_not_asked_for_them(
    client, alice, django_assert_max_num_queries
):
    agent = AgentFactory(created_by=alice, model="echo:demo", shared=False)

    # The session, the user, the agent (with alice's role and that it has no
    # tool flows), then the one transaction.
    with django_assert_max_num_queries(7) as captured:
        response = chat(client, agent, **STREAM)

    assert "flows_flow" not in " ".join(q["sql"] for q in captured.captured_queries)
    assert events(response)[-1][1]["message"]["content"] == "Echo: Hello"


@pytest.mark.parametrize("headers", [{}, STREAM], ids=["json", "stream"])
def test_a_member_demoted_to_viewer_may_no_longer_chat(client, alice, team, headers):
    agent = AgentFactory(
        workspace=team, created_by=None, model="echo:demo", shared=False
    )
    first = chat(client, agent, **headers)
    assert first.status_code == 200
    if headers:
        assert events(first)[-1][0] == "done"
    join_turns()

    Membership.objects.filter(user=alice, workspace=team).update(role="viewer")
    response = chat(client, agent, "Again", **headers)

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    assert "As a viewer of this workspace" in response.json()["error"]["message"]
    assert not Message.objects.filter(content="Again").exists()


def test_a_viewer_may_chat_with_a_shared_agent(client, alice, team):
    Membership.objects.filter(user=alice, workspace=team).update(role="viewer")
    agent = AgentFactory(
        workspace=team, created_by=None, model="echo:demo", shared=True
    )

    response = chat(client, agent, **STREAM)

    assert events(response)[-1][0] == "done"


def test_a_message_that_cannot_be_stored_cancels_the_turn(client, alice, monkeypatch):
    agent = AgentFactory(created_by=alice, model="echo:demo", shared=False)
    in_use = SLOTS.in_use
    save = Message.save

    def failing_save(message, *args, **kwargs):
        if message.role == Message.Role.USER:
            raise OperationalError("the database went away")
        return save(message, *args, **kwargs)

    monkeypatch.setattr(Message, "save", failing_save)

    response = chat(client, agent, **STREAM)
    join_turns()

    assert response.status_code == 503  # the API's answer to a database error
    assert response.json()["error"]["code"] == "unavailable"
    # The model call had started; the turn stored nothing of it.
    assert not Conversation.objects.exists()
    assert not Message.objects.exists()
    assert SLOTS.in_use == in_use


def test_a_stream_closed_unread_stops_the_turn_and_frees_its_slot(
    client, alice, settings
):
    settings.ECHO_WORD_DELAY_MS = 200
    agent = AgentFactory(created_by=alice, model="echo:demo", shared=False)
    in_use = SLOTS.in_use

    response = chat(client, agent, "one two three four five six", **STREAM)
    assert SLOTS.in_use == in_use + 1
    response.close()  # the server gave up on the body before sending any
    join_turns()

    assert SLOTS.in_use == in_use
    reply = Message.objects.get(role="assistant")
    assert reply.error["code"] == "cancelled"
    assert reply.content != "Echo: one two three four five six"
