"""Approval over Server-Sent Events, on a live server: the streamed chat ends
with `approval_required`, and a decision with `Accept: text/event-stream`
streams the resumed turn."""

from __future__ import annotations

from agents.models import Message
from flows.models import FlowRun
from tests.agents.test_api_chat_stream import events_of, live, stream  # noqa: F401
from tests.factories import AgentFactory, FlowFactory
from tests.llm_server import openai_text, openai_tool_call


def test_the_stream_ends_with_approval_required_and_the_decision_streams_on(
    live,  # noqa: F811
    alice,
    llm_server,
):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(model="openai:test-model", created_by=alice)
    agent.tools.add(flow)
    agent.approval_flows.add(flow)
    llm_server.queue(openai_tool_call("say_hello", {"name": "Ada"}, call_id="c1"))
    llm_server.queue(openai_text("Greeted Ada."))

    asked = events_of(stream(live, agent, "Greet Ada"))

    names = [name for name, _ in asked]
    assert names[0] == "start"
    assert names[-1] == "approval_required"
    assert "done" not in names and "tool_result" not in names
    held = asked[-1][1]
    assert held["status"] == "awaiting_approval"
    assert [(p["id"], p["arguments"]) for p in held["pending"]] == [
        ("c1", {"name": "Ada"})
    ]
    assert not FlowRun.objects.exists()

    resumed = live.post(
        f"/api/conversations/{held['conversation_id']}/tool-calls/c1",
        json={"decision": "approve"},
        headers={"Accept": "text/event-stream"},
    )

    assert resumed.headers["content-type"].startswith("text/event-stream")
    events = events_of(resumed)
    names = [name for name, _ in events]
    assert names[0] == "start"
    assert names.index("tool_result") < names.index("token") < names.index("done")
    assert events[0][1]["message_id"] == str(Message.objects.get(role="tool").pk)
    assert dict(events)["tool_result"]["status"] == "succeeded"
    assert dict(events)["done"]["message"]["content"] == "Greeted Ada."
    assert FlowRun.objects.get().input == {"name": "Ada"}


def test_a_refused_decision_is_a_json_envelope_not_a_stream(live, alice):  # noqa: F811
    response = live.post(
        "/api/conversations/00000000-0000-0000-0000-000000000000/tool-calls/c1",
        json={"decision": "approve"},
        headers={"Accept": "text/event-stream"},
    )

    assert response.status_code == 404
    assert response.headers["content-type"] == "application/json"
    assert response.json()["error"]["code"] == "not_found"
