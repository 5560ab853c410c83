"""Chat turns hold a web thread, so they count against the admission caps."""

from __future__ import annotations

from agents.models import Conversation, Message


def chat(client, agent):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hello"}, format="json"
    )


def test_a_chat_turn_on_a_full_process_is_503_and_stores_nothing(
    api, echo_agent, hold_slots
):
    for owner in (1, 2, 3):
        hold_slots(owner)

    response = chat(api, echo_agent)

    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert response["Retry-After"] == "2"
    assert not Conversation.objects.exists()
    assert not Message.objects.exists()


def test_a_user_at_the_cap_is_throttled_and_stores_nothing(
    api, alice, echo_agent, hold_slots
):
    hold_slots(alice.pk)  # a run of one of alice's flows
    hold_slots(alice.pk)  # another chat turn of hers

    response = chat(api, echo_agent)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert "Retry-After" in response
    assert not Message.objects.exists()


def test_another_user_still_chats_while_one_is_capped(
    bob_api, alice, echo_agent, hold_slots
):
    hold_slots(alice.pk)
    hold_slots(alice.pk)

    response = chat(bob_api, echo_agent)

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Echo: Hello"
