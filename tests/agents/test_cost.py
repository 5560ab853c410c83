"""What agents cost: prices per message, budgets, and GET /api/agents/:id/usage."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from genai_prices import Usage, calc_price

from agents.models import Conversation, Message, ModelPrice
from flows.engine import run_flow
from tests.factories import AgentFactory, FlowFactory
from tests.flows.graphs import chain, node, trigger
from tests.llm_server import anthropic_text, openai_text


def chat(client, agent, content="Hello", **extra):
    return client.post(
        f"/api/agents/{agent.id}/chat", {"content": content, **extra}, format="json"
    )


def test_a_message_costs_what_genai_prices_says_for_its_model(api, alice, llm_server):
    agent = AgentFactory(created_by=alice, model="openai:gpt-4o-mini")
    llm_server.queue(openai_text("Hi", prompt_tokens=1200, completion_tokens=300))

    body = chat(api, agent).json()

    expected = calc_price(
        Usage(input_tokens=1200, output_tokens=300),
        model_ref="gpt-4o-mini",
        provider_id="openai",
    ).total_price
    stored = Message.objects.get(role="assistant")
    assert stored.cost_usd == expected
    assert stored.price_source == "genai-prices"
    assert body["usage"]["cost_usd"] == pytest.approx(float(expected))
    assert stored.usage == {"input_tokens": 1200, "output_tokens": 300}


def test_anthropic_cache_reads_count_as_cached_input(api, alice, llm_server):
    agent = AgentFactory(created_by=alice, model="anthropic:claude-3-5-haiku-latest")
    answer = anthropic_text("Hi", input_tokens=100, output_tokens=50)
    answer["usage"]["cache_read_input_tokens"] = 1000
    llm_server.queue(answer)

    chat(api, agent)

    stored = Message.objects.get(role="assistant")
    assert stored.usage == {
        "input_tokens": 1100,
        "output_tokens": 50,
        "cached_tokens": 1000,
    }
    expected = calc_price(
        Usage(input_tokens=1100, output_tokens=50, cache_read_tokens=1000),
        model_ref="claude-3-5-haiku-latest",
        provider_id="anthropic",
    ).total_price
    assert stored.cost_usd == expected


def test_an_admin_price_wins_and_local_models_cost_nothing(api, alice, llm_server):
    ModelPrice.objects.create(
        model="openai:my-finetune", input_per_mtok=2, output_per_mtok=8
    )
    tuned = AgentFactory(created_by=alice, model="openai:my-finetune")
    echo = AgentFactory(created_by=alice, model="echo:demo")
    llm_server.queue(
        openai_text("Hi", prompt_tokens=1_000_000, completion_tokens=500_000)
    )

    chat(api, tuned)
    chat(api, echo)

    tuned_reply = Message.objects.get(conversation__agent=tuned, role="assistant")
    echo_reply = Message.objects.get(conversation__agent=echo, role="assistant")
    assert (tuned_reply.cost_usd, tuned_reply.price_source) == (Decimal(6), "override")
    assert (echo_reply.cost_usd, echo_reply.price_source) == (Decimal(0), "local")


def test_a_model_without_a_price_has_no_cost_not_a_guess(api, alice, llm_server):
    agent = AgentFactory(created_by=alice, model="openai:nobody-knows-this-model")
    llm_server.queue(openai_text("Hi"))

    body = chat(api, agent).json()

    stored = Message.objects.get(role="assistant")
    assert (stored.cost_usd, stored.price_source) == (None, "unknown")
    assert body["usage"]["cost_usd"] is None


def spend(agent, user, cost):
    conversation = Conversation.objects.create(agent=agent, user=user, title="old")
    Message.objects.create(
        conversation=conversation, role="assistant", content="x", cost_usd=cost
    )


def test_past_the_daily_cap_a_turn_is_refused_before_any_model_call(
    api, alice, llm_server
):
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-4o-mini", max_cost_per_day=Decimal("0.50")
    )
    spend(agent, alice, Decimal("0.50"))

    response = chat(api, agent)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "budget_exceeded"
    assert "$0.5" in response.json()["error"]["message"]
    assert llm_server.requests == []
    assert Message.objects.count() == 1  # only the spending above
    assert Conversation.objects.count() == 1


def test_yesterdays_spending_does_not_count_against_today(api, alice, llm_server):
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-4o-mini", max_cost_per_day=Decimal("0.50")
    )
    spend(agent, alice, Decimal("5"))
    Message.objects.update(
        created_at=datetime.datetime.now(datetime.UTC) - datetime.timedelta(days=1)
    )
    llm_server.queue(openai_text("Hi"))

    assert chat(api, agent).status_code == 200


def test_the_cap_per_turn_stops_the_tool_loop_before_the_next_call(
    api, alice, llm_server
):
    from tests.llm_server import openai_tool_call

    ModelPrice.objects.create(
        model="openai:pricey", input_per_mtok=0, output_per_mtok=1
    )
    flow = FlowFactory(created_by=alice, name="Look up")
    agent = AgentFactory(
        created_by=alice, model="openai:pricey", max_cost_per_turn=Decimal("0.001")
    )
    agent.tools.add(flow)
    # The first call alone costs 2,000 output tokens x $1/M = $0.002.
    answer = openai_tool_call("look_up", {})
    answer["usage"]["completion_tokens"] = 2000
    llm_server.queue(answer)

    response = chat(api, agent)

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "budget_exceeded"
    assert len(llm_server.requests) == 1  # no second call after the tool ran
    failed = Message.objects.filter(error__isnull=False).get()
    assert failed.error["code"] == "budget_exceeded"


def test_the_streamed_refusal_is_a_json_429_too(client, alice, llm_server):
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-4o-mini", max_cost_per_day=Decimal("0")
    )
    client.force_login(alice)

    response = client.post(
        f"/api/agents/{agent.id}/chat",
        {"content": "Hi"},
        content_type="application/json",
        HTTP_ACCEPT="text/event-stream",
    )

    assert response.status_code == 429
    assert response["Content-Type"] == "application/json"
    assert llm_server.requests == []


def test_the_agent_node_output_carries_usage(alice):
    agent = AgentFactory(created_by=alice, model="echo:demo")
    nodes, edges = chain(
        trigger(), node("ask", "agent", agent_id=str(agent.id), message="Hi there")
    )
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)

    run = run_flow(flow, {}, "manual")

    usage = run.as_result()["results"]["ask"]["usage"]
    # Echo counts words: system prompt and message in, reply out.
    assert usage == {"input_tokens": 5, "output_tokens": 3, "cost_usd": 0.0}


def test_usage_sums_by_day_user_and_conversation(api, alice, bob, llm_server):
    agent = AgentFactory(created_by=alice, model="openai:gpt-4o-mini", shared=True)
    llm_server.queue(openai_text("a", prompt_tokens=100, completion_tokens=10))
    llm_server.queue(openai_text("b", prompt_tokens=200, completion_tokens=20))
    first = chat(api, agent).json()
    chat(api, agent, conversation_id=first["conversation_id"])
    spend(agent, bob, Decimal("0.25"))

    body = api.get(f"/api/agents/{agent.id}/usage?days=7").json()

    assert body["days"] == 7
    assert len(body["by_day"]) == 7
    assert body["totals"]["input_tokens"] == 300
    assert body["totals"]["output_tokens"] == 30
    assert body["totals"]["messages"] == 3
    today = body["by_day"][-1]
    assert today["messages"] == 3
    assert body["totals"]["cost_usd"] == pytest.approx(today["cost_usd"])
    assert [row["username"] for row in body["by_user"]] == ["bob", "alice"]
    assert body["by_user"][0]["cost_usd"] == 0.25
    assert {row["conversation_id"] for row in body["by_conversation"]} == {
        first["conversation_id"],
        str(Conversation.objects.get(user=bob).pk),
    }


def test_the_owner_of_a_shared_agent_does_not_read_other_users_titles(api, alice, bob):
    agent = AgentFactory(created_by=alice, shared=True)
    spend(agent, alice, Decimal("1"))
    spend(agent, bob, Decimal("0.25"))

    body = api.get(f"/api/agents/{agent.id}/usage").json()

    titles = {row["cost_usd"]: row["title"] for row in body["by_conversation"]}
    assert titles == {1.0: "old", 0.25: None}


def test_users_of_a_shared_agent_see_only_their_own_usage(bob_api, alice, bob):
    agent = AgentFactory(created_by=alice, shared=True)
    spend(agent, alice, Decimal("1"))
    spend(agent, bob, Decimal("0.25"))

    body = bob_api.get(f"/api/agents/{agent.id}/usage").json()

    assert body["totals"]["cost_usd"] == 0.25
    assert [row["username"] for row in body["by_user"]] == ["bob"]


@pytest.mark.parametrize("days", ["0", "367", "x", "-1"])
def test_a_bad_window_is_a_validation_error(api, alice, days):
    agent = AgentFactory(created_by=alice)

    response = api.get(f"/api/agents/{agent.id}/usage?days={days}")

    assert response.status_code == 400
    assert "days" in response.json()["error"]["details"]


def test_owners_set_caps_through_the_api(api, alice):
    agent = AgentFactory(created_by=alice)

    response = api.patch(
        f"/api/agents/{agent.id}",
        {"max_cost_per_day": "2.5", "max_cost_per_turn": -1},
        format="json",
    )
    assert response.status_code == 400
    assert "max_cost_per_turn" in response.json()["error"]["details"]

    response = api.patch(
        f"/api/agents/{agent.id}", {"max_cost_per_day": "2.5"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["max_cost_per_day"] == 2.5
