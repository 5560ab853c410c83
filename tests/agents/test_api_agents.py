"""GET /api/agents: active agents for every signed-in user."""

from __future__ import annotations

from tests.factories import AgentFactory, FlowFactory


def test_signed_in_user_lists_active_agents_only(api):
    AgentFactory(name="Helper", model="openai:gpt-4o-mini", description="Helps.")
    AgentFactory(name="Retired", is_active=False)

    response = api.get("/api/agents")

    assert response.status_code == 200
    agents = response.json()
    assert [agent["name"] for agent in agents] == ["Helper"]
    assert agents[0]["model"] == "openai:gpt-4o-mini"
    assert agents[0]["description"] == "Helps."
    assert set(agents[0]) == {"id", "name", "model", "description", "tools"}


def test_agent_lists_its_tools_by_function_name_without_flow_ids(api, bob):
    flow = FlowFactory(created_by=bob, name="Look up order", description="Finds one.")
    agent = AgentFactory(created_by=bob)
    agent.tools.add(flow)

    response = api.get("/api/agents")

    assert response.json()[0]["tools"] == [
        {
            "name": "look_up_order",
            "title": "Look up order",
            "description": "Finds one.",
            "requires_approval": False,
        }
    ]
    # A flow id would let any user call the owner's unauthenticated webhook.
    assert str(flow.id) not in response.content.decode()


def test_flows_of_other_users_are_never_offered_as_tools(api, alice, bob):
    agent = AgentFactory(created_by=bob)
    agent.tools.add(FlowFactory(created_by=alice, name="Alice's private flow"))

    response = api.get("/api/agents")

    assert response.json()[0]["tools"] == []


def test_listing_agents_costs_a_fixed_number_of_queries(
    api, bob, django_assert_max_num_queries
):
    for n in range(4):
        agent = AgentFactory(created_by=bob, name=f"Agent {n}")
        agent.tools.add(FlowFactory(created_by=bob))

    # session, user, agents, their tools, the tools that ask first
    with django_assert_max_num_queries(5):
        response = api.get("/api/agents")

    assert len(response.json()) == 4


def test_anonymous_cannot_list_agents(anon):
    response = anon.get("/api/agents")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_one_agent_is_shown_by_id(api):
    agent = AgentFactory(name="Helper")

    response = api.get(f"/api/agents/{agent.id}")

    assert response.status_code == 200
    assert response.json()["name"] == "Helper"


def test_an_inactive_agent_is_not_found_by_id(api):
    retired = AgentFactory(is_active=False)

    response = api.get(f"/api/agents/{retired.id}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


def test_anonymous_cannot_read_an_agent(anon):
    agent = AgentFactory()

    response = anon.get(f"/api/agents/{agent.id}")

    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"
