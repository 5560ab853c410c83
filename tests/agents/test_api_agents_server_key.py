"""Who may spend the server's OPENAI_API_KEY / ANTHROPIC_API_KEY (issue 27).

An agent with no credential calls its provider with the server-wide key. Only
staff may make such an agent, or test a connection with it; anyone else names
a credential of their own, else a 400 on the `credential` field. An agent's
credential cannot be deleted from under it (409), and a turn with a
credential it cannot use is refused, never paid by the server.
"""

from __future__ import annotations

import pytest

from agents.models import Agent
from tests.factories import AgentFactory, make_credential
from tests.llm_server import openai_text

NEW = {"name": "Spender", "model": "openai:gpt-4o-mini", "system_prompt": "Hi."}


def assert_credential_required(response):
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert "credential" in error["details"]
    assert "server" in str(error["details"]["credential"])


@pytest.mark.parametrize("model", ["openai:gpt-4o-mini", "anthropic:claude-3-5-haiku"])
def test_a_user_cannot_create_an_agent_on_the_servers_key(api, model):
    response = api.post("/api/agents", {**NEW, "model": model}, format="json")

    assert_credential_required(response)
    assert not Agent.objects.exists()


def test_a_user_cannot_drop_the_credential_of_their_agent(api, alice):
    key = make_credential(alice, name="openai_key")
    agent = AgentFactory(created_by=alice, model="openai:gpt-4o-mini", credential=key)

    response = api.patch(f"/api/agents/{agent.id}", {"credential": None}, format="json")

    assert_credential_required(response)
    agent.refresh_from_db()
    assert agent.credential_id == key.id


def test_a_user_cannot_move_a_keyless_agent_onto_a_paid_provider(api, alice):
    agent = AgentFactory(created_by=alice, model="echo:demo")

    response = api.patch(
        f"/api/agents/{agent.id}", {"model": "openai:gpt-4o"}, format="json"
    )

    assert_credential_required(response)
    agent.refresh_from_db()
    assert agent.model == "echo:demo"


def test_a_user_cannot_test_a_connection_on_the_servers_key(api, llm_server):
    response = api.post(
        "/api/agents/test-connection", {"model": "openai:gpt-4o-mini"}, format="json"
    )

    assert_credential_required(response)
    assert llm_server.requests == []


def test_a_user_with_their_own_key_and_staff_without_one_may(api, alice):
    key = make_credential(alice, name="openai_key")
    mine = api.post("/api/agents", {**NEW, "credential": str(key.id)}, format="json")
    alice.is_staff = True
    alice.save()

    staff = api.post("/api/agents", NEW, format="json")

    assert mine.status_code == 201
    assert staff.status_code == 201
    assert Agent.objects.get(pk=staff.json()["id"]).credential is None


def test_models_that_use_no_server_key_need_no_credential(api):
    response = api.post("/api/agents", {**NEW, "model": "echo:demo"}, format="json")

    assert response.status_code == 201


def test_the_key_credential_of_an_agent_cannot_be_deleted_from_under_it(
    api, alice, llm_server
):
    """The rule above was checked when an agent was saved only: a user deleted
    the credential their agent named (no flow used it, so no `force` was
    needed), the agent's credential became empty, and its next turn was paid
    with the server's key (a review of `main`, 2026-12-06)."""
    key = make_credential(alice, name="openai_key", secrets={"token": "sk-users-own"})
    made = api.post("/api/agents", {**NEW, "credential": str(key.id)}, format="json")
    assert made.status_code == 201

    refused = api.delete(f"/api/credentials/{key.id}")
    forced = api.delete(f"/api/credentials/{key.id}?force=true")
    llm_server.queue(openai_text("hello"))
    chat = api.post(
        f"/api/agents/{made.json()['id']}/chat", {"content": "hi"}, format="json"
    )

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "conflict"
    assert error["details"]["used_by"] == [
        {"type": "agent", "id": made.json()["id"], "name": "Spender"}
    ]
    assert forced.status_code == 409  # `force` is for flows only
    assert Agent.objects.get(pk=made.json()["id"]).credential_id == key.id
    assert chat.status_code == 200, chat.content
    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer sk-users-own"


def test_an_agent_whose_credential_it_cannot_use_is_refused_not_paid_for(
    api, alice, bob, llm_server
):
    key = make_credential(alice, name="openai_key", secrets={"token": "sk-users-own"})
    made = api.post("/api/agents", {**NEW, "credential": str(key.id)}, format="json")
    key.workspace = make_credential(bob, name="elsewhere").workspace  # moved away
    key.save()

    chat = api.post(
        f"/api/agents/{made.json()['id']}/chat", {"content": "hi"}, format="json"
    )

    assert llm_server.requests == []  # nobody's key was spent
    assert chat.status_code == 502
    error = chat.json()["error"]
    assert error["code"] == "upstream_error"
    assert "credential" in error["message"] and "server's key" in error["message"]


def test_a_staff_members_agent_without_a_credential_still_uses_the_servers_key(
    api, alice, llm_server
):
    alice.is_staff = True
    alice.save()
    made = api.post("/api/agents", NEW, format="json")
    llm_server.queue(openai_text("hello"))

    chat = api.post(
        f"/api/agents/{made.json()['id']}/chat", {"content": "hi"}, format="json"
    )

    assert chat.status_code == 200, chat.content
    assert llm_server.requests[0]["headers"]["authorization"] == "Bearer sk-test-openai"
