"""Tools that ask first (agents/approval.py, agents/resume.py): the turn stops at
the call, `POST /api/conversations/:id/tool-calls/:call_id` decides, and the
model, through the official SDKs and the loopback server, sees what came of it."""

from __future__ import annotations

import json

import pytest

from accounts.models import Membership, Workspace
from agents.models import Agent, Message
from flows.models import Flow, FlowRun
from tests.agents.test_chat import agent_with, chat, tool_flow
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import (
    anthropic_text,
    anthropic_tool_use,
    openai_text,
    openai_tool_call,
)

ASKS = {
    "openai": (
        "openai:gpt-test",
        lambda args: openai_tool_call("look_up_order", args, call_id="call_7"),
        openai_text,
        "call_7",
    ),
    "anthropic": (
        "anthropic:claude-test",
        lambda args: anthropic_tool_use("look_up_order", args, use_id="toolu_7"),
        anthropic_text,
        "toolu_7",
    ),
}


@pytest.fixture(params=sorted(ASKS))
def wire(request, llm_server):
    return request.param


@pytest.fixture
def order_flow(alice):
    return tool_flow(alice)


def asking_agent(model, flow):
    agent = agent_with(model, flow)
    agent.approval_flows.add(flow)
    return agent


def tool_results_sent(wire, body) -> dict:
    """What the model was told each call came to: {call id: parsed content}."""
    if wire == "openai":
        return {
            m["tool_call_id"]: json.loads(m["content"])
            for m in body["messages"]
            if m["role"] == "tool"
        }
    return {
        block["tool_use_id"]: json.loads(block["content"])
        for m in body["messages"]
        if m["role"] == "user" and isinstance(m["content"], list)
        for block in m["content"]
        if block["type"] == "tool_result"
    }


def decide(client, conversation_id, call_id, **body):
    return client.post(
        f"/api/conversations/{conversation_id}/tool-calls/{call_id}",
        body,
        format="json",
    )


def held_turn(api, llm_server, wire, flow, arguments=None):
    model, ask, _, call_id = ASKS[wire]
    agent = asking_agent(model, flow)
    llm_server.queue(ask(arguments or {"number": 7}))
    response = chat(api, agent, "Where is order 7?")
    assert response.status_code == 202, response.content
    return response.json(), call_id


def test_a_call_that_asks_first_stops_the_turn_with_202_and_runs_nothing(
    api, llm_server, wire, order_flow
):
    body, call_id = held_turn(api, llm_server, wire, order_flow)

    assert body["status"] == "awaiting_approval"
    [pending] = body["pending"]
    assert pending["id"] == call_id
    assert pending["name"] == "look_up_order"
    assert pending["arguments"] == {"number": 7}
    assert pending["status"] == "pending_approval"
    assert not FlowRun.objects.exists()
    assert len(llm_server.requests) == 1  # the model waits for the decision
    held = Message.objects.get(role="tool")
    assert (held.approval, held.content) == ("pending_approval", "")
    assert str(held.pk) == pending["message_id"]


def test_approving_runs_the_tool_and_the_model_sees_its_result(
    api, llm_server, wire, order_flow
):
    body, call_id = held_turn(api, llm_server, wire, order_flow)
    llm_server.queue(ASKS[wire][2]("Order 7 has shipped."))

    response = decide(api, body["conversation_id"], call_id, decision="approve")

    assert response.status_code == 200, response.content
    assert response.json()["message"]["content"] == "Order 7 has shipped."
    run = FlowRun.objects.get()
    assert (run.trigger, run.status, run.input) == ("agent", "succeeded", {"number": 7})
    [call] = response.json()["tool_calls"]
    assert (call["id"], call["status"], call["run_id"]) == (
        call_id,
        "succeeded",
        str(run.pk),
    )
    sent = tool_results_sent(wire, llm_server.requests[1]["json"])
    assert sent[call_id]["success"] is True
    assert sent[call_id]["output"] == {"order": 7, "status": "shipped"}
    assert Message.objects.get(role="tool").approval == "approved"


def test_approving_with_edited_arguments_runs_those_and_history_says_so(
    api, llm_server, order_flow
):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)
    llm_server.queue(openai_text("Order 8 has shipped."))

    response = decide(
        api,
        body["conversation_id"],
        call_id,
        decision="approve",
        arguments={"number": 8},
    )

    assert response.status_code == 200
    assert FlowRun.objects.get().input == {"number": 8}
    follow_up = llm_server.requests[1]["json"]["messages"]
    [asked] = [m for m in follow_up if m.get("tool_calls")]
    assert json.loads(asked["tool_calls"][0]["function"]["arguments"]) == {"number": 8}
    sent = tool_results_sent("openai", llm_server.requests[1]["json"])
    assert sent[call_id]["output"] == {"order": 8, "status": "shipped"}


def test_denying_runs_nothing_and_the_model_reads_the_denial_and_reason(
    api, llm_server, wire, order_flow
):
    body, call_id = held_turn(api, llm_server, wire, order_flow)
    llm_server.queue(ASKS[wire][2]("Understood, I will not look it up."))

    response = decide(
        api, body["conversation_id"], call_id, decision="deny", reason="Not today"
    )

    assert response.status_code == 200
    assert response.json()["message"]["content"] == "Understood, I will not look it up."
    assert not FlowRun.objects.exists()
    sent = tool_results_sent(wire, llm_server.requests[1]["json"])
    assert sent[call_id]["success"] is False
    assert sent[call_id]["error"]["code"] == "denied"
    assert "Not today" in sent[call_id]["error"]["message"]
    assert response.json()["tool_calls"][0]["status"] == "refused"


def test_a_second_decision_is_409_and_changes_nothing(api, llm_server, order_flow):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)
    llm_server.queue(openai_text("Done."))
    decide(api, body["conversation_id"], call_id, decision="deny")

    again = decide(api, body["conversation_id"], call_id, decision="approve")

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "already_decided"
    assert "denied" in again.json()["error"]["message"]
    assert not FlowRun.objects.exists()
    assert len(llm_server.requests) == 2


def test_another_users_conversation_is_404(api, bob_api, llm_server, order_flow):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)

    response = decide(bob_api, body["conversation_id"], call_id, decision="approve")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Message.objects.get(role="tool").approval == "pending_approval"


def test_a_call_of_an_agent_switched_off_since_is_404(api, llm_server, order_flow):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)
    order_flow.agents.update(is_active=False)

    response = decide(api, body["conversation_id"], call_id, decision="approve")

    assert response.status_code == 404
    assert not FlowRun.objects.exists()


def test_an_unknown_call_id_is_404(api, llm_server, order_flow):
    body, _ = held_turn(api, llm_server, "openai", order_flow)

    response = decide(api, body["conversation_id"], "call_nope", decision="approve")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"decision": "maybe"}, "decision"),
        ({"decision": "approve", "arguments": [1, 2]}, "arguments"),
        ({}, "decision"),
    ],
)
def test_a_malformed_decision_is_400_and_the_call_still_waits(
    api, llm_server, order_flow, bad, field
):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)

    response = decide(api, body["conversation_id"], call_id, **bad)

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert field in response.json()["error"]["details"]
    assert Message.objects.get(role="tool").approval == "pending_approval"


def test_no_new_message_while_a_call_waits(api, llm_server, order_flow):
    body, _ = held_turn(api, llm_server, "openai", order_flow)
    agent = order_flow.agents.get()

    response = chat(api, agent, "Hello?", body["conversation_id"])

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "approval_pending"
    assert Message.objects.filter(role="user").count() == 1
    assert len(llm_server.requests) == 1


def test_tools_that_do_not_ask_run_at_once_beside_one_that_does(
    api, llm_server, alice, order_flow
):
    other = tool_flow(alice, name="Count orders", code="return {count: 3};")
    agent = asking_agent("openai:gpt-test", order_flow)
    agent.tools.add(other)
    both = openai_tool_call("look_up_order", {"number": 7}, call_id="call_a")
    both["choices"][0]["message"]["tool_calls"].append(
        {
            "id": "call_b",
            "type": "function",
            "function": {"name": "count_orders", "arguments": "{}"},
        }
    )
    llm_server.queue(both)

    response = chat(api, agent, "How are my orders?")

    assert response.status_code == 202
    assert [p["id"] for p in response.json()["pending"]] == ["call_a"]
    assert [c["id"] for c in response.json()["tool_calls"]] == ["call_b"]
    assert FlowRun.objects.get().flow == other


def test_inside_a_flow_run_the_call_is_refused_and_the_model_reads_why(
    alice, order_flow
):
    from flows.engine import run_flow

    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(order_flow)
    agent.approval_flows.add(order_flow)
    nodes, edges = chain(
        trigger(),
        node("ask", "agent", agent_id=str(agent.id), message="/tool look_up_order"),
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, "manual")

    assert run.status == "succeeded"
    reply = run.as_result()["results"]["ask"]["reply"]
    assert reply.startswith("Tool look_up_order returned:")
    assert '"approval_required"' in reply
    assert not FlowRun.objects.filter(flow=order_flow).exists()


def test_the_owner_marks_tool_flows_that_ask_first(api, alice, order_flow):
    agent = AgentFactory(created_by=alice, model="echo:demo", shared=False)
    other = FlowFactory(created_by=alice, name="Not a tool")

    refused = api.patch(
        f"/api/agents/{agent.id}",
        {"tool_flows": [str(order_flow.id)], "approval_flows": [str(other.id)]},
        format="json",
    )
    accepted = api.patch(
        f"/api/agents/{agent.id}",
        {"tool_flows": [str(order_flow.id)], "approval_flows": [str(order_flow.id)]},
        format="json",
    )

    assert refused.status_code == 400
    assert "approval_flows" in refused.json()["error"]["details"]
    assert accepted.status_code == 200
    assert accepted.json()["approval_flows"] == [str(order_flow.id)]
    assert accepted.json()["tools"][0]["requires_approval"] is True
    # Taking the flow off the tools takes its approval setting with it.
    emptied = api.patch(f"/api/agents/{agent.id}", {"tool_flows": []}, format="json")
    assert emptied.json()["approval_flows"] == []


def test_an_mcp_servers_tools_ask_first_when_it_requires_approval(
    api, alice, mcp_server, allow_loopback
):
    agent = AgentFactory(
        created_by=alice,
        model="echo:demo",
        mcp_servers=[{"name": "test", "url": mcp_server, "requires_approval": True}],
    )

    held = chat(api, agent, '/tool mcp_test_add {"a": 2, "b": 40}')

    assert held.status_code == 202
    [pending] = held.json()["pending"]
    assert pending["name"] == "mcp_test_add"
    approved = decide(
        api,
        held.json()["conversation_id"],
        pending["id"],
        decision="approve",
        arguments={"a": 1, "b": 1},
    )
    assert approved.status_code == 200
    [call] = approved.json()["tool_calls"]
    assert call["result"]["output"] == {"result": 2}
    assert approved.json()["message"]["content"].startswith(
        "Tool mcp_test_add returned:"
    )


@pytest.mark.parametrize("shared, status", [(False, 403), (True, 200)])
def test_a_member_demoted_to_viewer_may_decide_only_on_a_shared_agent(
    api, alice, llm_server, order_flow, shared, status
):
    body, call_id = held_turn(api, llm_server, "openai", order_flow)
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="viewer")
    Agent.objects.update(workspace=team, shared=shared)
    Flow.objects.filter(pk=order_flow.pk).update(workspace=team)
    llm_server.queue(openai_text("Order 7 has shipped."))

    response = decide(api, body["conversation_id"], call_id, decision="approve")

    assert response.status_code == status, response.content
    if status == 403:
        assert response.json()["error"]["code"] == "permission_denied"
        assert Message.objects.get(role="tool").approval == "pending_approval"
        assert not FlowRun.objects.exists()
