"""The agents list and the chat page, server side (the browser test drives the JS)."""

from __future__ import annotations

import json
import uuid

from django.test import Client

from agents.models import Conversation
from tests.factories import AgentFactory, FlowFactory


def page_client(user):
    client = Client()
    client.force_login(user)
    return client


def chat_data(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="chat-data" type="application/json">')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def test_agents_list_links_to_each_chat(alice, echo_agent):
    AgentFactory(name="Retired", is_active=False)

    response = page_client(alice).get("/agents/")

    assert response.status_code == 200
    assert f'href="/agents/{echo_agent.id}/"' in response.content.decode()
    assert "Retired" not in response.content.decode()


def test_chat_page_starts_empty_with_the_agent(alice, echo_agent):
    response = page_client(alice).get(f"/agents/{echo_agent.id}/")

    assert response.status_code == 200
    data = chat_data(response)
    assert data["agent"]["id"] == str(echo_agent.id)
    assert data["conversation_id"] is None
    assert data["messages"] == []
    assert "js/chat.js" in response.content.decode()


def test_chat_page_opens_an_earlier_conversation(alice, api, echo_agent):
    reply = api.post(
        f"/api/agents/{echo_agent.id}/chat", {"content": "Hi"}, format="json"
    ).json()

    response = page_client(alice).get(
        f"/agents/{echo_agent.id}/?c={reply['conversation_id']}"
    )

    data = chat_data(response)
    assert data["conversation_id"] == reply["conversation_id"]
    assert [m["content"] for m in data["messages"]] == ["Hi", "Echo: Hi"]
    assert f"?c={reply['conversation_id']}" in response.content.decode()


def test_messages_cannot_break_out_of_the_page_data(alice, api, echo_agent):
    attack = "</script><script>alert(1)</script>"
    reply = api.post(
        f"/api/agents/{echo_agent.id}/chat", {"content": attack}, format="json"
    ).json()

    response = page_client(alice).get(
        f"/agents/{echo_agent.id}/?c={reply['conversation_id']}"
    )

    html = response.content.decode()
    assert "<script>alert(1)</script>" not in html
    assert chat_data(response)["messages"][0]["content"] == attack


def test_someone_elses_conversation_is_not_found_on_the_page(
    alice, bob_api, echo_agent
):
    bobs = bob_api.post(
        f"/api/agents/{echo_agent.id}/chat", {"content": "Bob's"}, format="json"
    ).json()["conversation_id"]

    response = page_client(alice).get(f"/agents/{echo_agent.id}/?c={bobs}")

    assert response.status_code == 404
    assert Conversation.objects.filter(pk=bobs).exists()


def test_malformed_conversation_id_on_the_page_is_not_found(alice, echo_agent):
    response = page_client(alice).get(f"/agents/{echo_agent.id}/?c=nope")

    assert response.status_code == 404


def test_chat_page_of_an_unknown_or_inactive_agent_is_not_found(alice):
    retired = AgentFactory(is_active=False)
    client = page_client(alice)

    assert client.get(f"/agents/{retired.id}/").status_code == 404
    assert client.get(f"/agents/{uuid.uuid4()}/").status_code == 404


def test_anonymous_is_sent_to_sign_in(db, echo_agent):
    response = Client().get(f"/agents/{echo_agent.id}/")

    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_the_page_gives_run_ids_only_to_the_owner_of_the_tool_flow(
    alice, bob, api, bob_api
):
    from flows.models import FlowRun

    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(FlowFactory(created_by=alice, name="Say hello"))
    content = {"content": '/tool Say hello {"name": "Ada"}'}
    bobs = bob_api.post(f"/api/agents/{agent.id}/chat", content, format="json")
    alices = api.post(f"/api/agents/{agent.id}/chat", content, format="json")

    bob_page = page_client(bob).get(
        f"/agents/{agent.id}/?c={bobs.json()['conversation_id']}"
    )
    alice_page = page_client(alice).get(
        f"/agents/{agent.id}/?c={alices.json()['conversation_id']}"
    )

    [bob_tool] = [m for m in chat_data(bob_page)["messages"] if m["role"] == "tool"]
    [alice_tool] = [m for m in chat_data(alice_page)["messages"] if m["role"] == "tool"]
    bobs_run, alices_run = FlowRun.objects.order_by("created_at")
    assert bob_tool["run_id"] is None
    assert str(bobs_run.id) not in bob_page.content.decode()
    assert alice_tool["run_id"] == str(alices_run.id)


def test_the_empty_chat_names_only_the_flows_the_agent_may_run(alice, bob):
    from tests.factories import FlowFactory

    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(FlowFactory(created_by=alice, name="Say hello"))
    agent.tools.add(FlowFactory(created_by=bob, name="Bob's private flow"))

    html = page_client(bob).get(f"/agents/{agent.id}/").content.decode()

    assert "It can run these flows as tools: <strong>Say hello</strong>." in html
    assert "Bob&#x27;s private flow" not in html
    assert "Bob's private flow" not in html


def form_data(response) -> dict:
    html = response.content.decode()
    start = html.index('<script id="agent-form-data" type="application/json">')
    start = html.index(">", start) + 1
    return json.loads(html[start : html.index("</script>", start)])


def test_agent_page_offers_only_the_users_flows_and_key_credentials(alice, bob):
    from tests.factories import make_credential

    FlowFactory(created_by=alice, name="Mine")
    FlowFactory(created_by=bob, name="Bob's")
    make_credential(alice, name="openai_key")
    make_credential(
        alice, name="login", kind="basic", secrets={"username": "a", "password": "b"}
    )
    make_credential(bob, name="bobs_key")

    response = page_client(alice).get("/agents/new/")

    assert response.status_code == 200
    data = form_data(response)
    assert data["agent"] is None
    assert [flow["name"] for flow in data["flows"]] == ["Mine"]
    assert [c["name"] for c in data["credentials"]] == ["openai_key"]
    assert "s3cr3t" not in response.content.decode()


def test_agent_edit_page_is_the_owners_only(alice, bob):
    agent = AgentFactory(created_by=alice, shared=True, system_prompt="Be brief.")

    mine = page_client(alice).get(f"/agents/{agent.id}/edit/")
    theirs = page_client(bob).get(f"/agents/{agent.id}/edit/")

    assert mine.status_code == 200
    assert form_data(mine)["agent"]["system_prompt"] == "Be brief."
    assert theirs.status_code == 404
    # The chat page links to it for the owner only.
    assert (
        f"/agents/{agent.id}/edit/"
        in page_client(alice).get(f"/agents/{agent.id}/").content.decode()
    )
    assert (
        f"/agents/{agent.id}/edit/"
        not in page_client(bob).get(f"/agents/{agent.id}/").content.decode()
    )


def test_agents_list_shows_own_and_shared_agents_not_others_private_ones(alice, bob):
    AgentFactory(created_by=alice, shared=False, name="Alice private")
    AgentFactory(created_by=bob, shared=False, name="Bob private")
    AgentFactory(created_by=bob, shared=True, name="Bob shared")

    html = page_client(alice).get("/agents/").content.decode()

    assert "Alice private" in html
    assert "Bob shared" in html
    assert "Bob private" not in html
