"""POST /api/agents/:id/chat on the offline echo model: conversations and history."""

from __future__ import annotations

import uuid

import pytest

from agents.models import Conversation, Message
from tests.factories import AgentFactory


def chat(client, agent, content="Hello", **extra):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": content, **extra}, format="json"
    )


def test_first_message_starts_a_conversation_and_stores_both_turns(
    api, alice, echo_agent
):
    response = chat(api, echo_agent, "Hello there")

    assert response.status_code == 200
    body = response.json()
    assert body["message"]["role"] == "assistant"
    assert body["message"]["content"] == "Echo: Hello there"
    assert body["tool_calls"] == []
    assert body["usage"] == {"input_tokens": 5, "output_tokens": 3, "cost_usd": 0.0}
    conversation = Conversation.objects.get(pk=body["conversation_id"])
    assert conversation.user == alice
    assert conversation.agent == echo_agent
    assert conversation.title == "Hello there"
    assert [(m.role, m.content) for m in conversation.messages.all()] == [
        ("user", "Hello there"),
        ("assistant", "Echo: Hello there"),
    ]
    assert body["message"]["id"] == str(conversation.messages.last().id)


def test_second_message_continues_the_conversation_with_its_history(api, echo_agent):
    first = chat(api, echo_agent, "One").json()

    response = chat(api, echo_agent, "Two", conversation_id=first["conversation_id"])

    assert response.status_code == 200
    assert response.json()["conversation_id"] == first["conversation_id"]
    # The echo model numbers the user turns it was sent: it saw the history.
    assert response.json()["message"]["content"] == "Echo: Two (turn 2)"
    assert Conversation.objects.count() == 1
    assert Message.objects.count() == 4


def test_reply_carries_sanitised_html(api, echo_agent):
    response = chat(api, echo_agent, "**bold** <script>alert(1)</script>")

    html = response.json()["message"]["html"]
    assert "<strong>bold</strong>" in html
    assert "<script>" not in html
    assert "&lt;script&gt;" in html


@pytest.mark.parametrize(
    "body",
    [{}, {"content": ""}, {"content": "   \n "}, {"content": None}],
    ids=["missing", "empty", "blank", "null"],
)
def test_missing_or_empty_content_is_rejected_and_nothing_is_stored(
    api, echo_agent, body
):
    response = api.post(f"/api/agents/{echo_agent.id}/chat", body, format="json")

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "content" in error["details"]
    assert Conversation.objects.count() == 0
    assert Message.objects.count() == 0


def test_content_over_32000_characters_is_rejected(api, echo_agent):
    response = chat(api, echo_agent, "x" * 32_001)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert "32000" in response.json()["error"]["message"]
    assert Message.objects.count() == 0


def test_content_of_exactly_32000_characters_is_accepted(api, echo_agent):
    response = chat(api, echo_agent, "x" * 32_000)

    assert response.status_code == 200
    assert Message.objects.filter(role="user").get().content == "x" * 32_000


def test_unknown_agent_is_not_found(api):
    response = chat(api, AgentFactory.build(), "Hi")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Message.objects.count() == 0


def test_malformed_agent_id_is_not_found(api):
    response = api.post("/api/agents/not-a-uuid/chat", {"content": "Hi"})

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_inactive_agent_is_not_found(api):
    retired = AgentFactory(is_active=False)

    response = chat(api, retired, "Hi")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Conversation.objects.count() == 0


def test_unknown_conversation_is_not_found(api, echo_agent):
    response = chat(api, echo_agent, "Hi", conversation_id=str(uuid.uuid4()))

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Message.objects.count() == 0


def test_malformed_conversation_id_is_not_found(api, echo_agent):
    response = chat(api, echo_agent, "Hi", conversation_id="nope")

    assert response.status_code == 404
    assert Message.objects.count() == 0


def test_someone_elses_conversation_is_not_found(api, bob_api, echo_agent):
    bobs = chat(bob_api, echo_agent, "Bob's secret").json()["conversation_id"]

    response = chat(api, echo_agent, "Let me in", conversation_id=bobs)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Message.objects.filter(conversation_id=bobs).count() == 2
    assert not Message.objects.filter(content="Let me in").exists()


def test_conversation_of_another_agent_is_not_found(api, echo_agent):
    other_agent = AgentFactory(name="Other")
    other = chat(api, other_agent, "Hi").json()["conversation_id"]

    response = chat(api, echo_agent, "Wrong thread", conversation_id=other)

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert not Message.objects.filter(content="Wrong thread").exists()


def test_anonymous_cannot_chat(anon, echo_agent):
    response = chat(anon, echo_agent, "Hi")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
    assert Message.objects.count() == 0


def test_chat_needs_a_csrf_token_with_a_session(alice, echo_agent):
    from rest_framework.test import APIClient

    client = APIClient(enforce_csrf_checks=True)
    client.force_login(alice)

    response = chat(client, echo_agent, "Hi")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "csrf_failed"
    assert Message.objects.count() == 0


def test_chat_and_conversations_are_described_in_the_openapi_schema(api):
    schema = api.get("/api/schema", HTTP_ACCEPT="application/json").json()

    chat_operation = schema["paths"]["/api/agents/{id}/chat"]["post"]
    reply = chat_operation["responses"]["200"]["content"]["application/json"]
    assert reply["schema"]["$ref"] == "#/components/schemas/ChatReply"
    assert {"/api/agents/{id}/conversations", "/api/conversations/{id}"} <= set(
        schema["paths"]
    )
