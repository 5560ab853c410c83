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

    # session, user, agents, their tools, the tools that ask first, their
    # knowledge bases
    with django_assert_max_num_queries(6):
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


def test_an_agent_is_made_in_a_workspace_where_the_caller_edits(api, alice, bob):
    from accounts.workspaces.models import Membership, Workspace
    from agents.models import Agent

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")
    watched = Workspace.objects.create(name="Watched", slug="watched")
    Membership.objects.create(workspace=watched, user=alice, role="viewer")
    team_flow = FlowFactory(created_by=alice, workspace=team, name="Team tool")
    own_flow = FlowFactory(created_by=alice, name="Own tool")

    def make(**body):
        body = {"name": "Helper", "model": "echo:demo", **body}
        return api.post("/api/agents", body, format="json")

    made = make(workspace=str(team.id), tool_flows=[str(team_flow.id)])
    refused = make(workspace=str(watched.id))
    strange = make(workspace=str(bob.personal_workspace.id))
    mixed = make(workspace=str(team.id), tool_flows=[str(own_flow.id)])
    default = make(name="Mine")

    assert made.status_code == 201, made.content
    assert made.json()["workspace"] == str(team.id)
    assert Agent.objects.get(pk=made.json()["id"]).created_by == alice
    assert refused.status_code == 403
    assert strange.status_code == 400
    assert "workspace" in strange.json()["error"]["details"]
    assert mixed.status_code == 400
    assert "tool_flows" in mixed.json()["error"]["details"]
    assert default.json()["workspace"] == str(alice.personal_workspace.id)
