"""GET /api/agents: active agents for every signed-in user."""

from __future__ import annotations

from tests.factories import AgentFactory


def test_signed_in_user_lists_active_agents_only(api):
    AgentFactory(name="Helper", model="openai:gpt-4o-mini")
    AgentFactory(name="Retired", is_active=False)

    response = api.get("/api/agents")

    assert response.status_code == 200
    agents = response.json()
    assert [agent["name"] for agent in agents] == ["Helper"]
    assert agents[0]["model"] == "openai:gpt-4o-mini"
    assert {"id", "name", "model"} <= agents[0].keys()


def test_anonymous_cannot_list_agents(anon):
    response = anon.get("/api/agents")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
