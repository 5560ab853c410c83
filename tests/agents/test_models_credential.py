"""An agent's provider key from its owner's credential (issue 15, item 7)."""

from __future__ import annotations

import pytest

from agents.chat import send_message
from tests.factories import AgentFactory, make_credential
from tests.llm_server import anthropic_text, openai_text

pytestmark = pytest.mark.django_db


def test_an_openai_agent_sends_its_credentials_key(llm_server, alice):
    credential = make_credential(alice, "openai", secrets={"token": "sk-own-key-1"})
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-test", credential=credential
    )
    llm_server.queue(openai_text("hi"))

    send_message(agent, alice, "hello")

    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer sk-own-key-1"


def test_an_anthropic_agent_sends_its_header_credentials_key(llm_server, alice):
    credential = make_credential(
        alice, "claude", "header", {"value": "sk-ant-own-2"}, header_name="x-api-key"
    )
    agent = AgentFactory(
        created_by=alice, model="anthropic:claude-test", credential=credential
    )
    llm_server.queue(anthropic_text("hi"))

    send_message(agent, alice, "hello")

    headers = llm_server.requests[0]["headers"]
    # The SDK's version decides whether the key goes in x-api-key or Authorization.
    sent = f"{headers.get('x-api-key')} {headers.get('authorization')}"
    assert "sk-ant-own-2" in sent
    assert "sk-test-anthropic" not in str(headers)


def test_without_a_credential_the_setting_key_is_used(llm_server, alice):
    agent = AgentFactory(created_by=alice, model="openai:gpt-test")
    llm_server.queue(openai_text("hi"))

    send_message(agent, alice, "hello")

    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer sk-test-openai"


def test_admin_refuses_a_credential_of_another_user(admin_client, alice, bob):
    credential = make_credential(bob, "bobs")

    response = admin_client.post(
        "/admin/agents/agent/add/",
        {
            "name": "Thief",
            "model": "openai:gpt-test",
            "temperature": "0.3",
            "max_tokens": "8",
            "created_by": alice.pk,
            "credential": str(credential.pk),
        },
    )

    assert response.status_code == 200
    assert "must belong to the agent" in response.content.decode()
    from agents.models import Agent

    assert not Agent.objects.filter(name="Thief").exists()
