"""The day cap cannot be dodged (issue 27): calls cut short still cost, and
every model call of a turn, not only its first, is checked against the cap."""

from __future__ import annotations

from decimal import Decimal

import pytest

from agents.chat import ChatCancelled, ChatFailed, start_turn
from agents.models import Message, ModelPrice
from agents.pricing import spent_today
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import openai_text, openai_tool_call

WORDS = " ".join(f"word{n}" for n in range(40))


@pytest.fixture
def pricey(alice):
    """$1 per million tokens in and out: any tokens cost something."""
    ModelPrice.objects.create(
        model="openai:pricey", input_per_mtok=1, output_per_mtok=1
    )
    return AgentFactory(created_by=alice, model="openai:pricey")


def test_a_reply_the_caller_abandons_still_costs_what_was_streamed(
    alice, pricey, llm_server
):
    llm_server.queue(openai_text(WORDS))
    tokens = []

    def emit(event, data):
        if event == "token":
            tokens.append(data["text"])
            if len(tokens) == 3:
                turn.cancelled.set()  # the caller went away

    turn = start_turn(pricey, alice, "Talk", emit=emit)
    with pytest.raises(ChatCancelled):
        turn.run()

    reply = Message.objects.get(role="assistant")
    assert reply.error["code"] == "cancelled"
    assert reply.cost_usd is not None and reply.cost_usd > 0
    assert reply.usage["output_tokens"] > 0
    assert spent_today(pricey) == reply.cost_usd


def test_a_reply_failing_mid_answer_still_costs_what_was_streamed(
    alice, pricey, llm_server, settings
):
    settings.AGENT_TIMEOUT_SECONDS = 0.5
    llm_server.queue(openai_text(WORDS), chunk_delay=2.0)

    with pytest.raises(ChatFailed):
        start_turn(pricey, alice, "Talk").run()

    failed = Message.objects.get(role="assistant")
    assert failed.error is not None
    assert failed.cost_usd is not None and failed.cost_usd > 0
    assert spent_today(pricey) == failed.cost_usd


def test_the_day_cap_is_checked_before_every_model_call_of_a_turn(
    api, alice, llm_server
):
    ModelPrice.objects.create(
        model="openai:pricey", input_per_mtok=0, output_per_mtok=1
    )
    agent = AgentFactory(
        created_by=alice, model="openai:pricey", max_cost_per_day=Decimal("0.001")
    )
    agent.tools.add(FlowFactory(created_by=alice, name="Look up"))
    # The first call alone costs 2,000 output tokens x $1/M = $0.002.
    answer = openai_tool_call("look_up", {})
    answer["usage"]["completion_tokens"] = 2000
    llm_server.queue(answer)
    llm_server.queue(openai_text("A second, paid answer."))

    response = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "Hi"}, format="json"
    )

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "budget_exceeded"
    assert len(llm_server.requests) == 1  # no second call past the day's cap
