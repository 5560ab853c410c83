"""GET /api/agents/:id/conversations and /api/conversations/:id: only your own."""

from __future__ import annotations

import uuid

from agents.models import Conversation, Message
from tests.factories import AgentFactory


def start(client, agent, content):
    response = client.post(
        f"/api/agents/{agent.id}/chat", {"content": content}, format="json"
    )
    return response.json()["conversation_id"]


def test_agent_conversations_lists_the_callers_own_newest_first(
    api, bob_api, echo_agent
):
    older = start(api, echo_agent, "First topic")
    newer = start(api, echo_agent, "Second topic")
    start(bob_api, echo_agent, "Bob's topic")
    start(api, AgentFactory(name="Other"), "Elsewhere")

    response = api.get(f"/api/agents/{echo_agent.id}/conversations")

    assert response.status_code == 200
    page = response.json()
    assert (page["count"], page["next"], page["previous"]) == (2, None, None)
    assert [c["id"] for c in page["results"]] == [newer, older]
    assert page["results"][0]["title"] == "Second topic"
    assert page["results"][0]["agent_id"] == str(echo_agent.id)


def test_continuing_a_conversation_moves_it_to_the_top(api, echo_agent):
    older = start(api, echo_agent, "First topic")
    start(api, echo_agent, "Second topic")
    api.post(
        f"/api/agents/{echo_agent.id}/chat",
        {"content": "Back to it", "conversation_id": older},
        format="json",
    )

    response = api.get(f"/api/agents/{echo_agent.id}/conversations")

    assert response.json()["results"][0]["id"] == older


def test_agent_conversations_costs_a_fixed_number_of_queries(
    api, echo_agent, django_assert_max_num_queries
):
    for n in range(5):
        start(api, echo_agent, f"Topic {n}")

    with django_assert_max_num_queries(5):
        response = api.get(f"/api/agents/{echo_agent.id}/conversations")

    assert len(response.json()["results"]) == 5


def test_agent_conversations_of_an_inactive_agent_are_not_found(api):
    retired = AgentFactory(is_active=False)

    response = api.get(f"/api/agents/{retired.id}/conversations")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_cannot_list_agent_conversations(anon, echo_agent):
    response = anon.get(f"/api/agents/{echo_agent.id}/conversations")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_conversation_shows_its_messages_in_order(api, echo_agent):
    conversation_id = start(api, echo_agent, "Hi *there*")

    response = api.get(f"/api/conversations/{conversation_id}")

    assert response.status_code == 200
    body = response.json()
    assert body["id"] == conversation_id
    assert body["agent_id"] == str(echo_agent.id)
    assert [(m["role"], m["content"]) for m in body["messages"]] == [
        ("user", "Hi *there*"),
        ("assistant", "Echo: Hi *there*"),
    ]
    assert body["messages"][0]["html"] == "<p>Hi <em>there</em></p>"
    assert body["messages"][1]["run_id"] is None
    assert body["messages"][1]["error"] is None


def test_someone_elses_conversation_is_not_found(api, bob_api, echo_agent):
    bobs = start(bob_api, echo_agent, "Bob's secret")

    response = api.get(f"/api/conversations/{bobs}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert "secret" not in response.content.decode()
    assert Conversation.objects.filter(pk=bobs).exists()


def test_unknown_conversation_is_not_found(api):
    response = api.get(f"/api/conversations/{uuid.uuid4()}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_cannot_read_a_conversation(anon, api, echo_agent):
    conversation_id = start(api, echo_agent, "Private")

    response = anon.get(f"/api/conversations/{conversation_id}")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Message.objects.filter(conversation_id=conversation_id).count() == 2


def test_conversation_list_holds_only_the_callers_conversations(
    api, bob_api, echo_agent
):
    mine = start(api, echo_agent, "Mine")
    start(bob_api, echo_agent, "Bob's")

    response = api.get("/api/conversations")

    assert response.status_code == 200
    assert response.json()["count"] == 1
    assert [c["id"] for c in response.json()["results"]] == [mine]


def test_anonymous_cannot_list_conversations(anon, api, echo_agent):
    start(api, echo_agent, "Private")

    response = anon.get("/api/conversations")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_reading_a_conversation_costs_a_fixed_number_of_queries(
    api, echo_agent, django_assert_max_num_queries
):
    conversation_id = start(api, echo_agent, "One")
    for n in range(5):
        api.post(
            f"/api/agents/{echo_agent.id}/chat",
            {"content": f"More {n}", "conversation_id": conversation_id},
            format="json",
        )

    with django_assert_max_num_queries(4):
        response = api.get(f"/api/conversations/{conversation_id}")

    assert len(response.json()["messages"]) == 12


def many_conversations(user, agent, count):
    """`count` conversations of `user` with `agent`, stored without any chat."""
    return [
        Conversation.objects.create(agent=agent, user=user, title=f"Topic {n}")
        for n in range(count)
    ]


def test_agent_conversations_come_twenty_to_a_page(api, alice, echo_agent):
    many_conversations(alice, echo_agent, 23)

    first = api.get(f"/api/agents/{echo_agent.id}/conversations").json()
    second = api.get(f"/api/agents/{echo_agent.id}/conversations?page=2").json()

    assert first["count"] == 23
    assert len(first["results"]) == 20
    assert first["next"].endswith(f"/api/agents/{echo_agent.id}/conversations?page=2")
    assert len(second["results"]) == 3
    assert second["next"] is None
    ids = [c["id"] for c in first["results"] + second["results"]]
    assert len(set(ids)) == 23


def test_conversation_list_pages_and_takes_a_page_size(api, alice, echo_agent):
    many_conversations(alice, echo_agent, 12)
    many_conversations(alice, AgentFactory(), 3)

    response = api.get("/api/conversations?page_size=5&page=3")

    assert response.status_code == 200
    page = response.json()
    assert page["count"] == 15
    assert len(page["results"]) == 5
    assert page["previous"].endswith("page=2&page_size=5")


def test_a_page_past_the_end_is_not_found(api, alice, echo_agent):
    many_conversations(alice, echo_agent, 2)

    response = api.get(f"/api/agents/{echo_agent.id}/conversations?page=9")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
