"""A provider that is down, slow, failing or unreadable: 502/504, and nothing lost
(`providers.base.sdk_errors` turns each SDK failure into a ProviderError).

Each case runs against both official SDKs. In every failure the user's message is
stored, the failed assistant turn records the error, and the next message in the
same conversation works (the failed turn is left out of the history it sends).
"""

from __future__ import annotations

import pytest

from agents.models import Conversation, Message
from tests.llm_server import anthropic_text, openai_text

PROVIDERS = {
    "openai": ("/v1/chat/completions", openai_text),
    "anthropic": ("/v1/messages", anthropic_text),
}


@pytest.fixture(params=sorted(PROVIDERS))
def provider(request, openai_agent, anthropic_agent):
    """(agent, path, text-answer builder) for each provider in turn."""
    agent = {"openai": openai_agent, "anthropic": anthropic_agent}[request.param]
    path, text = PROVIDERS[request.param]
    return agent, path, text


def chat(client, agent, content, conversation_id=None):
    body = {"content": content}
    if conversation_id:
        body["conversation_id"] = conversation_id
    return client.post(f"/api/agents/{agent.id}/chat", body, format="json")


def assert_failure_recorded(response, status, code):
    """The envelope names the conversation; it holds the user's turn and the error."""
    assert response.status_code == status
    error = response.json()["error"]
    assert error["code"] == code
    conversation = Conversation.objects.get(pk=error["details"]["conversation_id"])
    user_turn, failed_turn = conversation.messages.all()
    assert (user_turn.role, user_turn.content) == ("user", "Hello")
    assert failed_turn.role == "assistant"
    assert failed_turn.error["code"] == code
    return conversation


def assert_conversation_still_usable(api, llm_server, agent, path, text, conversation):
    llm_server.queue(text("Back again"))

    response = chat(api, agent, "Still there?", str(conversation.pk))

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Back again"
    sent = llm_server.bodies(path)[-1]["messages"]
    assert user_texts(sent) == ["Hello", "Still there?"]
    assert all(message["role"] != "assistant" for message in sent)
    assert conversation.messages.count() == 4


def user_texts(messages):
    """The user's words in a sent history, whichever protocol's shape it has."""
    texts = []
    for message in messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content
        )
        texts += [block["text"] for block in blocks if block["type"] == "text"]
    return texts


def test_server_error_is_an_upstream_error(api, llm_server, provider):
    agent, path, text = provider
    llm_server.queue({"error": {"message": "boom"}}, status=500)

    response = chat(api, agent, "Hello")

    conversation = assert_failure_recorded(response, 502, "upstream_error")
    assert "500" in response.json()["error"]["message"]
    assert_conversation_still_usable(api, llm_server, agent, path, text, conversation)


def test_garbage_json_is_an_upstream_error(api, llm_server, provider):
    agent, path, text = provider
    llm_server.queue(b"this is {not json")

    response = chat(api, agent, "Hello")

    conversation = assert_failure_recorded(response, 502, "upstream_error")
    assert_conversation_still_usable(api, llm_server, agent, path, text, conversation)


def test_answer_of_the_wrong_shape_is_an_upstream_error(api, llm_server, provider):
    agent, path, text = provider
    llm_server.queue({"unexpected": True})

    response = chat(api, agent, "Hello")

    assert_failure_recorded(response, 502, "upstream_error")
    assert "malformed" in response.json()["error"]["message"]


def test_unreachable_provider_is_an_upstream_error(
    api, settings, llm_server, closed_port_url, provider
):
    agent, path, text = provider
    settings.OPENAI_BASE_URL = f"{closed_port_url}/v1"
    settings.ANTHROPIC_BASE_URL = closed_port_url

    response = chat(api, agent, "Hello")

    conversation = assert_failure_recorded(response, 502, "upstream_error")
    assert "unreachable" in response.json()["error"]["message"]
    settings.OPENAI_BASE_URL = f"{llm_server.url}/v1"
    settings.ANTHROPIC_BASE_URL = llm_server.url
    assert_conversation_still_usable(api, llm_server, agent, path, text, conversation)


def test_slow_provider_is_a_timeout(api, settings, llm_server, provider):
    agent, path, text = provider
    settings.AGENT_TIMEOUT_SECONDS = 0.5
    llm_server.queue(text("Too late"), delay=3)

    response = chat(api, agent, "Hello")

    conversation = assert_failure_recorded(response, 504, "timeout")
    assert "0.5 seconds" in response.json()["error"]["message"]
    assert not Message.objects.filter(content="Too late").exists()
    assert_conversation_still_usable(api, llm_server, agent, path, text, conversation)


@pytest.mark.parametrize(
    ("fixture", "setting"),
    [("openai_agent", "OPENAI_API_KEY"), ("anthropic_agent", "ANTHROPIC_API_KEY")],
)
def test_missing_api_key_names_the_setting(
    api, settings, llm_server, request, fixture, setting
):
    agent = request.getfixturevalue(fixture)
    setattr(settings, setting, "")

    response = chat(api, agent, "Hello")

    assert_failure_recorded(response, 502, "upstream_error")
    assert setting in response.json()["error"]["message"]
    assert llm_server.requests == []
