"""History trimmed to the agent's context budget (agents/context.py)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.context import fit
from agents.models import Message
from tests.factories import AgentFactory
from tests.llm_server import openai_text


def user(text):
    return {"role": "user", "content": text}


def reply(text, calls=()):
    entry = {"role": "assistant", "content": text}
    if calls:
        entry["tool_calls"] = [{"id": c, "name": "t", "arguments": {}} for c in calls]
    return entry


def result(call_id, text="x" * 40):
    return {"role": "tool", "tool_call_id": call_id, "name": "t", "content": text}


def test_without_a_budget_everything_is_sent():
    history = [user("a" * 4000), reply("b" * 4000), user("c")]

    assert fit(history, context_tokens=None, system="", max_tokens=10) == (history, 0)


def test_the_oldest_exchanges_go_first_and_the_newest_always_stays():
    old = [user("a" * 2000), reply("b" * 2000)]
    recent = [user("c" * 200), reply("d" * 200)]
    current = [user("e" * 8000)]  # alone over the budget: kept anyway

    sent, left_out = fit(
        old + recent + current, context_tokens=2000, system="", max_tokens=100
    )

    assert sent == current
    assert left_out == 4
    sent, left_out = fit(
        old + recent + [user("e")], context_tokens=700, system="", max_tokens=100
    )
    assert sent == recent + [user("e")]
    assert left_out == 2


def test_the_system_prompt_and_the_answer_room_come_off_the_budget():
    history = [user("a" * 400), reply("b" * 400), user("c")]

    assert fit(history, context_tokens=600, system="", max_tokens=100)[1] == 0
    assert fit(history, context_tokens=600, system="s" * 1200, max_tokens=100)[1] == 2


messages = st.lists(
    st.sampled_from(["user", "plain", "tools"]), min_size=1, max_size=30
)


@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(messages, st.integers(min_value=1, max_value=3000))
def test_a_tool_call_is_never_sent_without_its_result(shape, budget):
    history, n = [], 0
    for kind in shape:
        if kind == "user" or not history:
            history.append(user("u" * 100))
        elif kind == "plain":
            history.append(reply("r" * 100))
        else:
            n += 1
            history += [reply("", [f"c{n}"]), result(f"c{n}")]

    sent, left_out = fit(history, context_tokens=budget, system="", max_tokens=10)

    assert sent[0]["role"] == "user"
    assert sent == history[left_out:]
    calls = {c["id"] for m in sent for c in m.get("tool_calls", [])}
    answered = {m["tool_call_id"] for m in sent if m["role"] == "tool"}
    assert calls == answered


def test_a_long_conversation_sends_only_what_fits_and_says_so(api, alice, llm_server):
    agent = AgentFactory(
        created_by=alice, model="openai:gpt-test", context_tokens=600, max_tokens=100
    )
    llm_server.queue(openai_text("first answer " * 100))
    first = api.post(
        f"/api/agents/{agent.id}/chat", {"content": "x" * 1000}, format="json"
    ).json()
    llm_server.queue(openai_text("Short."))

    second = api.post(
        f"/api/agents/{agent.id}/chat",
        {"content": "And now?", "conversation_id": first["conversation_id"]},
        format="json",
    ).json()

    sent = llm_server.requests[-1]["json"]["messages"]
    assert [m["content"] for m in sent if m["role"] != "system"] == ["And now?"]
    assert second["usage"]["context_trimmed"] == 2
    assert "context_trimmed" not in first["usage"]
    stored = Message.objects.filter(role="assistant").last()
    assert stored.usage["context_trimmed"] == 2
