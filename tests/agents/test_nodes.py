"""The `agent` node in flows (agents/nodes.py): registered by the agents app,
validated at save time, run by the real engine."""

from __future__ import annotations

import json
import uuid

from accounts.models import Membership, Workspace
from agents.chat import MAX_AGENT_DEPTH
from agents.models import Conversation, Message
from agents.nodes import AgentNode
from flows.engine import run_flow
from flows.models import Flow, FlowRun
from flows.nodes import NODE_KINDS, get_kind
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.llm_server import openai_text


def agent_node(agent_id, message="Hello {{ input.name }}"):
    return node("ask", "agent", agent_id=str(agent_id), message=message)


def agent_flow(owner, agent, message="Hello {{ input.name }}", name="Ask"):
    nodes, edges = chain(trigger(), agent_node(agent.id, message))
    return FlowFactory(created_by=owner, name=name, nodes=nodes, edges=edges)


def test_the_agents_app_registers_the_agent_kind_once():
    assert isinstance(get_kind("agent"), AgentNode)
    assert [kind.type for kind in NODE_KINDS.values()].count("agent") == 1


def test_agent_node_replies_and_the_conversation_belongs_to_the_flow_owner(
    alice, echo_agent
):
    flow = agent_flow(alice, echo_agent)

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "succeeded"
    output = run.as_result()["results"]["ask"]
    assert output["reply"] == "Echo: Hello Ada"
    conversation = Conversation.objects.get(pk=output["conversation_id"])
    assert (conversation.user, conversation.agent) == (alice, echo_agent)
    assert [m.content for m in conversation.messages.all()] == [
        "Hello Ada",
        "Echo: Hello Ada",
    ]
    assert run.steps.get(node_id="ask").status == "succeeded"


def test_flow_with_an_agent_node_is_accepted_by_the_api(api, echo_agent):
    nodes, edges = chain(trigger(), agent_node(echo_agent.id))

    response = api.post(
        "/api/flows", {"name": "Ask", "nodes": nodes, "edges": edges}, format="json"
    )

    assert response.status_code == 201
    assert Flow.objects.get().nodes[1]["data"]["agent_id"] == str(echo_agent.id)


def save_problems(api, data):
    nodes, edges = chain(trigger(), node("ask", "agent", **data))
    response = api.post(
        "/api/flows", {"name": "Ask", "nodes": nodes, "edges": edges}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert not Flow.objects.exists()
    return {
        problem["field"]
        for problem in response.json()["error"]["details"]["nodes"]
        if problem["index"] == 1
    }


def test_agent_node_needs_an_existing_agent(api):
    assert save_problems(api, {"agent_id": str(uuid.uuid4()), "message": "Hi"}) == {
        "data.agent_id"
    }


def test_agent_node_needs_an_agent_id_that_is_a_uuid(api):
    assert save_problems(api, {"agent_id": "nope", "message": "Hi"}) == {
        "data.agent_id"
    }


def test_agent_node_refuses_an_inactive_agent(api):
    retired = AgentFactory(is_active=False)

    assert save_problems(api, {"agent_id": str(retired.id), "message": "Hi"}) == {
        "data.agent_id"
    }


def test_agent_node_needs_a_message(api, echo_agent):
    assert save_problems(api, {"agent_id": str(echo_agent.id), "message": " "}) == {
        "data.message"
    }


def test_agent_deactivated_after_saving_fails_the_run(alice, echo_agent):
    flow = agent_flow(alice, echo_agent)
    echo_agent.is_active = False
    echo_agent.save()

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "agent_not_found"
    assert not Conversation.objects.exists()


def test_provider_failure_fails_the_node_and_keeps_the_message(
    alice, llm_server, openai_agent
):
    flow = agent_flow(alice, openai_agent)
    llm_server.queue({"error": {"message": "overloaded"}}, status=503)

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "failed"
    assert run.error["node_id"] == "ask"
    assert run.error["code"] == "upstream_error"
    assert Message.objects.get(role="user").content == "Hello Ada"


def test_agent_node_talks_to_a_real_provider(alice, llm_server, openai_agent):
    flow = agent_flow(alice, openai_agent, message="Summarise {{ input.text }}")
    llm_server.queue(openai_text("Short."))

    run = run_flow(flow, {"text": "a long story"}, "webhook")

    assert run.as_result()["results"]["ask"]["reply"] == "Short."
    sent = llm_server.requests[0]["json"]["messages"]
    assert sent[-1] == {"role": "user", "content": "Summarise a long story"}


def test_agents_calling_themselves_through_flows_stop_at_the_depth_limit(api, bob):
    """Agent -> tool flow -> agent node -> same agent -> ... ends, it does not loop."""
    agent = AgentFactory(created_by=bob, model="echo:demo")
    loop = agent_flow(bob, agent, message="/tool Ask {}", name="Ask")
    agent.tools.add(loop)

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "/tool Ask {}"}, format="json"
    )

    assert response.status_code == 200
    runs = FlowRun.objects.filter(trigger="agent")
    assert runs.count() == 3
    assert runs.get(status="failed").error["code"] == "agent_too_deep"
    # The depth travels as an argument, never in the request's facts.
    assert [run.request_meta for run in runs] == [{}, {}, {}]


def test_a_run_started_at_the_depth_limit_refuses_its_agent_node(alice, echo_agent):
    flow = agent_flow(alice, echo_agent)

    run = run_flow(flow, {"name": "Ada"}, "agent", depth=MAX_AGENT_DEPTH)

    assert run.status == "failed"
    assert run.error["code"] == "agent_too_deep"
    assert not Conversation.objects.exists()


def test_a_run_below_the_depth_limit_runs_its_agent_node(alice, echo_agent):
    flow = agent_flow(alice, echo_agent)

    run = run_flow(flow, {"name": "Ada"}, "agent", depth=MAX_AGENT_DEPTH - 1)

    assert run.status == "succeeded"
    assert run.results["ask"]["reply"] == "Echo: Hello Ada"


def test_an_agent_node_without_a_usable_agent_fails_the_run_clearly(alice):
    nodes, edges = chain(trigger(), node("ask", "agent", agent_id="x", message="hi"))
    flow = Flow.objects.create(created_by=alice, name="Ask", nodes=nodes, edges=edges)

    run = run_flow(flow, {}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "agent_not_found"


def test_another_users_private_agent_is_not_found_at_run_time(alice, bob):
    # Bob's agent may hold his provider key: Alice's flow must not spend it.
    bobs = AgentFactory(created_by=bob, shared=False, model="echo:demo")
    flow = agent_flow(alice, bobs)

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "failed"
    assert run.error["code"] == "agent_not_found"
    assert not Conversation.objects.exists()


def test_the_agent_is_found_in_the_flows_workspace_not_the_creators_others(alice):
    from accounts.workspaces.models import Membership, Workspace

    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="editor")
    teams_agent = AgentFactory(
        created_by=alice, workspace=team, shared=False, model="echo:demo"
    )
    personal = agent_flow(alice, teams_agent)
    in_team = agent_flow(alice, teams_agent, name="Team ask")
    Flow.objects.filter(pk=in_team.pk).update(workspace=team)
    in_team.refresh_from_db()

    refused = run_flow(personal, {"name": "Ada"}, "manual")
    served = run_flow(in_team, {"name": "Ada"}, "manual")

    assert refused.error["code"] == "agent_not_found"
    assert "workspace" in refused.error["message"]
    assert served.status == "succeeded", served.error
    assert Conversation.objects.get().user == alice


def test_a_flow_whose_creator_is_gone_says_why_its_agent_node_fails(alice, echo_agent):
    flow = agent_flow(alice, echo_agent)
    Flow.objects.filter(pk=flow.pk).update(created_by=None)
    flow.refresh_from_db()

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.error["code"] == "agent_not_found"
    assert "creator" in run.error["message"]
    assert not Conversation.objects.exists()


def test_a_viewer_cannot_chat_with_a_team_agent_through_an_agent_node(alice, bob):
    """Bob may only view the team's flows (no agents.chat, no runs.start); an
    agent node in a flow of his own must not chat with the team's private
    agent, whose tools are team flows (run with the team's credentials) and
    whose provider key is the team's."""
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    Membership.objects.create(workspace=team, user=bob, role="viewer")
    nodes, edges = chain(trigger(), code("report", "return {card: 'TEAM-SECRET'};"))
    report = FlowFactory(
        created_by=alice, workspace=team, name="Report", nodes=nodes, edges=edges
    )
    agent = AgentFactory(created_by=alice, workspace=team, shared=False)
    agent.tools.add(report)
    flow = agent_flow(bob, agent, message="/tool Report {}")

    run = run_flow(flow, {}, "manual")

    assert "TEAM-SECRET" not in json.dumps(run.as_result())
    assert run.status == "failed"
    assert run.error["code"] == "agent_not_found"
    assert not FlowRun.objects.filter(flow=report).exists()


def test_a_team_flow_chats_with_its_own_workspaces_agent(alice):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="owner")
    agent = AgentFactory(created_by=alice, workspace=team, shared=False)
    flow = agent_flow(alice, agent)
    Flow.objects.filter(pk=flow.pk).update(workspace=team)
    flow.refresh_from_db()

    run = run_flow(flow, {"name": "Ada"}, "manual")

    assert run.status == "succeeded"
    assert run.as_result()["results"]["ask"]["reply"] == "Echo: Hello Ada"
