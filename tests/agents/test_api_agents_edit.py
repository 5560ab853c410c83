"""POST/PATCH/DELETE /api/agents: agents users make themselves, owned like flows."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.models import Membership, Workspace
from agents.models import Agent, Conversation
from tests.factories import AgentFactory, FlowFactory, make_credential
from tests.llm_server import openai_text

NEW = {
    "name": "Support",
    # A model that spends no server key: openai/anthropic ones need a
    # credential of the user's (test_api_agents_server_key.py).
    "model": "echo:demo",
    "description": "Answers customers.",
    "system_prompt": "Be brief.",
    "temperature": 0.3,
    "max_tokens": 500,
}


def create(client, **fields):
    return client.post("/api/agents", {**NEW, **fields}, format="json")


def test_a_user_creates_an_agent_they_own_and_only_they_see(api, alice, bob_api):
    response = create(api)

    assert response.status_code == 201
    body = response.json()
    assert response["ETag"] == '"1"'
    assert body["name"] == "Support"
    assert body["system_prompt"] == "Be brief."
    assert (body["temperature"], body["max_tokens"], body["version"]) == (0.3, 500, 1)
    assert body["shared"] is False
    agent = Agent.objects.get(pk=body["id"])
    assert agent.created_by == alice
    # Private, like a flow: another user neither lists nor opens it.
    assert bob_api.get("/api/agents").json() == []
    assert bob_api.get(f"/api/agents/{agent.id}").status_code == 404
    assert [a["name"] for a in api.get("/api/agents").json()] == ["Support"]


def test_the_owner_sees_the_settings_others_see_only_the_listing(api, alice, bob_api):
    agent = AgentFactory(created_by=alice, shared=True, system_prompt="Secret sauce.")

    mine = api.get(f"/api/agents/{agent.id}").json()
    theirs = bob_api.get(f"/api/agents/{agent.id}").json()

    assert mine["system_prompt"] == "Secret sauce."
    assert set(theirs) == {"id", "name", "model", "description", "tools"}
    assert "Secret sauce" not in str(theirs)


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"model": "gpt-4o"}, "model"),
        ({"model": "skynet:t800"}, "model"),
        ({"name": "  "}, "name"),
        ({"temperature": 2.5}, "temperature"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"tool_flows": ["not-a-uuid"]}, "tool_flows"),
    ],
)
def test_bad_settings_are_refused_with_the_field_named(api, fields, field):
    response = create(api, **fields)

    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "validation_error"
    assert field in error["details"]
    assert not Agent.objects.exists()


def test_tools_are_the_owners_flows_another_users_flow_reads_as_missing(
    api, alice, bob
):
    mine = FlowFactory(created_by=alice, name="Look up order")
    theirs = FlowFactory(created_by=bob, name="Bob's payroll")

    refused = create(api, tool_flows=[str(mine.id), str(theirs.id)])
    accepted = create(api, tool_flows=[str(mine.id)])

    assert refused.status_code == 400
    assert refused.json()["error"]["details"]["tool_flows"] == [
        "No flow of yours has this id."
    ]
    assert accepted.status_code == 201
    assert accepted.json()["tool_flows"] == [str(mine.id)]
    assert accepted.json()["tools"][0]["name"] == "look_up_order"


def test_the_key_credential_must_be_the_owners_bearer_or_header_one(api, alice, bob):
    bobs = make_credential(bob, name="bobs_key")
    basic = make_credential(
        alice, name="basic", kind="basic", secrets={"username": "a", "password": "b"}
    )
    own = make_credential(alice, name="openai_key")

    assert create(api, credential=str(bobs.id)).status_code == 400
    assert create(api, credential=str(basic.id)).status_code == 400
    response = create(api, credential=str(own.id))

    assert response.status_code == 201
    assert response.json()["credential"] == str(own.id)
    # The id only: the key itself never leaves the server.
    assert "s3cr3t" not in response.content.decode()


def test_patch_with_the_current_version_saves_and_bumps_it(api, alice):
    agent_id = create(api).json()["id"]

    response = api.patch(
        f"/api/agents/{agent_id}",
        {"system_prompt": "Be kind."},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert response.status_code == 200
    assert response["ETag"] == '"2"'
    assert Agent.objects.get(pk=agent_id).system_prompt == "Be kind."


def test_patch_that_changes_nothing_keeps_the_version(api):
    """A save of an unchanged form (or a retried PATCH) is no new version: a
    teammate's If-Match of the current version stays good."""
    agent_id = create(api).json()["id"]

    response = api.patch(
        f"/api/agents/{agent_id}",
        {"name": NEW["name"], "temperature": NEW["temperature"]},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert response.status_code == 200
    assert response["ETag"] == '"1"'
    assert response.json()["version"] == 1
    assert Agent.objects.get(pk=agent_id).version == 1
    edited = api.patch(
        f"/api/agents/{agent_id}",
        {"name": "Renamed"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )
    assert edited.status_code == 200
    assert edited["ETag"] == '"2"'


def test_patch_with_a_stale_version_is_412_and_changes_nothing(api):
    agent_id = create(api).json()["id"]
    api.patch(f"/api/agents/{agent_id}", {"name": "First"}, format="json")

    response = api.patch(
        f"/api/agents/{agent_id}",
        {"name": "Second"},
        format="json",
        HTTP_IF_MATCH='"1"',
    )

    assert response.status_code == 412
    assert response.json()["error"]["code"] == "precondition_failed"
    assert response.json()["error"]["details"] == {"current_version": 2}
    assert Agent.objects.get(pk=agent_id).name == "First"


def test_only_the_owner_edits_or_deletes(api, alice, bob_api):
    shared = AgentFactory(created_by=alice, shared=True, name="Shared")
    private = AgentFactory(created_by=alice, shared=False, name="Private")

    # A shared agent is visible to bob, so he is told he may not; a private
    # one does not exist for him.
    assert bob_api.patch(f"/api/agents/{shared.id}", {"name": "Mine"}).status_code == (
        403
    )
    assert bob_api.delete(f"/api/agents/{shared.id}").status_code == 403
    assert bob_api.patch(f"/api/agents/{private.id}", {"name": "x"}).status_code == 404
    assert bob_api.delete(f"/api/agents/{private.id}").status_code == 404
    assert set(Agent.objects.values_list("name", flat=True)) == {"Shared", "Private"}


def test_owners_cannot_make_their_agent_shared_through_the_api(api, bob_api):
    agent_id = create(api).json()["id"]

    api.patch(f"/api/agents/{agent_id}", {"shared": True}, format="json")

    assert Agent.objects.get(pk=agent_id).shared is False
    assert bob_api.get(f"/api/agents/{agent_id}").status_code == 404


def test_delete_removes_the_agent_and_its_conversations(api, alice):
    agent_id = create(api, model="echo:demo").json()["id"]
    api.post(f"/api/agents/{agent_id}/chat", {"content": "Hi"}, format="json")

    response = api.delete(f"/api/agents/{agent_id}")

    assert response.status_code == 200
    assert response.json() == {"success": True}
    assert not Agent.objects.exists()
    assert not Conversation.objects.exists()


def test_a_private_agent_of_someone_else_cannot_be_chatted_with(bob_api, alice):
    agent = AgentFactory(created_by=alice, shared=False)

    response = bob_api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hi"}, format="json"
    )

    assert response.status_code == 404
    assert not Conversation.objects.exists()


def test_test_connection_asks_the_model_with_the_chosen_key(api, alice, llm_server):
    key = make_credential(alice, name="openai_key", secrets={"token": "sk-from-cred"})
    llm_server.queue(openai_text("OK"))

    response = api.post(
        "/api/agents/test-connection",
        {"model": "openai:gpt-4o-mini", "credential": str(key.id)},
        format="json",
    )

    assert response.status_code == 200
    assert response.json()["ok"] is True
    assert response.json()["reply"] == "OK"
    sent = llm_server.requests[0]
    assert sent["headers"]["authorization"] == "Bearer sk-from-cred"
    assert sent["json"]["model"] == "gpt-4o-mini"


def test_test_connection_reports_a_refused_key_as_upstream_error(
    api, alice, llm_server
):
    alice.is_staff = True  # the server's key: staff only
    alice.save()
    llm_server.queue({"error": {"message": "Incorrect API key"}}, status=401)

    response = api.post(
        "/api/agents/test-connection", {"model": "openai:gpt-4o-mini"}, format="json"
    )

    assert response.status_code == 502
    error = response.json()["error"]
    assert error["code"] == "upstream_error"
    assert "401" in error["message"]
    assert "Incorrect API key" in error["message"]


def test_test_connection_with_someone_elses_credential_is_refused(api, bob):
    bobs = make_credential(bob, name="bobs_key")

    response = api.post(
        "/api/agents/test-connection",
        {"model": "openai:gpt-4o-mini", "credential": str(bobs.id)},
        format="json",
    )

    assert response.status_code == 400
    assert "credential" in response.json()["error"]["details"]


def test_a_viewer_cannot_test_a_connection_with_the_teams_key(alice, bob, llm_server):
    """Bob may only view the team's credentials' names: the server must not
    send the team's provider key for him (a paid call, and an oracle telling
    whether the key works)."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    key = make_credential(alice, name="team_key", workspace=team)
    llm_server.queue(openai_text("OK"))
    client = APIClient()
    client.force_login(bob)

    response = client.post(
        "/api/agents/test-connection",
        {"model": "openai:gpt-4o-mini", "credential": str(key.id)},
        format="json",
    )

    assert response.status_code == 400
    assert "credential" in response.json()["error"]["details"]
    assert llm_server.requests == []
