"""Agent chat rate limits (issue 13, item 5): 500 messages in 9 s from one user
were 500 paid model calls. Per-user and per-agent rates, 429 with Retry-After;
agent nodes inside flows count against the flow owner's and the agent's budget."""

from __future__ import annotations

import pytest

from agents.models import Message
from flows.engine import run_flow
from tests.agents.test_nodes import agent_flow
from tests.factories import AgentFactory


@pytest.fixture
def three_per_user(settings):
    settings.AGENT_USER_RATE = "3/60s"
    settings.AGENT_RATE = "100/60s"


@pytest.fixture
def three_per_agent(settings):
    settings.AGENT_USER_RATE = "100/60s"
    settings.AGENT_RATE = "3/60s"


def chat(client, agent, content="Hello"):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": content}, format="json"
    )


def user_messages(user) -> int:
    return Message.objects.filter(
        conversation__user=user, role=Message.Role.USER
    ).count()


def test_a_user_over_their_rate_gets_429_and_nothing_is_stored(
    api, alice, echo_agent, three_per_user
):
    statuses = [chat(api, echo_agent).status_code for _ in range(3)]

    response = chat(api, echo_agent, "one too many")

    assert statuses == [200, 200, 200]
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "throttled"
    assert 1 <= int(response["Retry-After"]) <= 60
    assert user_messages(alice) == 3


def test_the_user_rate_holds_across_agents(api, alice, echo_agent, three_per_user):
    other = AgentFactory(name="Other", model="echo:demo")
    for _ in range(3):
        chat(api, echo_agent)

    assert chat(api, other).status_code == 429


def test_one_users_rate_does_not_stop_another(api, bob_api, echo_agent, three_per_user):
    for _ in range(4):
        chat(api, echo_agent)

    assert chat(bob_api, echo_agent).status_code == 200


def test_an_agent_over_its_rate_refuses_everyone(
    api, bob_api, bob, echo_agent, three_per_agent
):
    for _ in range(3):
        assert chat(api, echo_agent).status_code == 200

    response = chat(bob_api, echo_agent)

    assert response.status_code == 429
    assert user_messages(bob) == 0
    other = AgentFactory(name="Other", model="echo:demo")
    assert chat(bob_api, other).status_code == 200


def test_agent_nodes_in_flows_count_against_the_owner(
    api, alice, echo_agent, three_per_user
):
    flow = agent_flow(alice, echo_agent)
    runs = [run_flow(flow, {"name": "Ada"}, "manual") for _ in range(3)]

    refused = run_flow(flow, {"name": "Ada"}, "manual")

    assert [run.status for run in runs] == ["succeeded"] * 3
    assert refused.status == "failed"
    assert refused.error["node_id"] == "ask"
    assert refused.error["code"] == "throttled"
    assert chat(api, echo_agent).status_code == 429
    assert user_messages(alice) == 3
