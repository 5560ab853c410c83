"""Tools that ask first, in Chromium: the agent page marks one, the chat page
shows its call with editable arguments, and Approve / Deny (by keyboard) resume
the turn."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from agents.models import Agent, Message
from flows.models import FlowRun
from tests.factories import AgentFactory, FlowFactory


def asking_echo_agent(alice):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(
        created_by=alice, shared=False, name="Careful", model="echo:demo"
    )
    agent.tools.add(flow)
    agent.approval_flows.add(flow)
    return agent, flow


def send(page, text):
    page.locator("#chat-input").fill(text)
    page.locator("#chat-input").press("Enter")


def test_a_user_edits_the_arguments_and_approves_with_the_keyboard(
    alice_page, alice, live_url, page_errors
):
    agent, flow = asking_echo_agent(alice)
    alice_page.goto(f"{live_url}/agents/{agent.id}/")

    send(alice_page, '/tool Say hello {"name": "Ada"}')

    card = alice_page.get_by_role("group", name="say_hello asks for your approval")
    expect(card).to_be_visible()
    # Keyboard users land on the decision.
    expect(card.get_by_role("button", name="Approve")).to_be_focused()
    arguments = card.get_by_label("Arguments")
    expect(arguments).to_have_value(json.dumps({"name": "Ada"}, indent=2))
    assert not FlowRun.objects.exists()  # nothing runs before the decision
    arguments.fill('{"name": "Grace"}')
    card.get_by_role("button", name="Approve").focus()
    alice_page.keyboard.press("Enter")

    expect(alice_page.locator(".chat-approval")).to_have_text("say_hello: approved.")
    expect(alice_page.locator(".chat-tool summary")).to_have_text(
        "Tool say_hello · succeeded"
    )
    reply = alice_page.locator(".chat-assistant").last
    expect(reply).to_contain_text("Tool say_hello returned:")
    expect(reply).to_contain_text("Grace")
    run = FlowRun.objects.get()
    assert (run.flow, run.input) == (flow, {"name": "Grace"})
    # The conversation goes on afterwards.
    send(alice_page, "Thanks")
    expect(alice_page.locator(".chat-assistant").last).to_contain_text("Echo: Thanks")
    assert page_errors == []


def test_a_waiting_call_survives_a_reload_and_is_denied_with_a_reason(
    alice_page, alice, live_url
):
    agent, _ = asking_echo_agent(alice)
    alice_page.goto(f"{live_url}/agents/{agent.id}/")
    send(alice_page, "/tool Say hello")
    expect(alice_page.locator(".chat-approval")).to_be_visible()

    alice_page.reload()
    send(alice_page, "Anyone there?")
    expect(alice_page.locator(".chat-error").last).to_contain_text(
        "Approve or deny the tool call above first."
    )
    card = alice_page.get_by_role("group", name="say_hello asks for your approval")
    card.get_by_label("Reason").fill("Not now")
    card.get_by_role("button", name="Deny").click()

    expect(alice_page.locator(".chat-approval")).to_have_text("say_hello: denied.")
    expect(alice_page.locator(".chat-tool summary")).to_have_text(
        "Tool say_hello · denied"
    )
    reply = alice_page.locator(".chat-assistant").last
    expect(reply).to_contain_text("denied")
    expect(reply).to_contain_text("Not now")
    assert not FlowRun.objects.exists()
    assert Message.objects.get(role="tool").approval == "denied"


def test_the_agent_page_marks_a_tool_that_asks_first_and_sets_a_schema(
    alice_page, alice, live_url
):
    FlowFactory(created_by=alice, name="Send invoice")
    alice_page.goto(f"{live_url}/agents/new/")
    alice_page.get_by_label("Name", exact=True).fill("Billing")
    approval = alice_page.get_by_label("requires approval")
    expect(approval).to_be_disabled()  # only a tool can ask first
    alice_page.get_by_label("Send invoice").check()
    approval.check()
    schema = alice_page.get_by_label("Output schema")
    schema.fill("{not json")
    alice_page.get_by_role("button", name="Create agent").click()
    expect(alice_page.locator("#agent-output_schema-error")).to_have_text(
        "This is not valid JSON."
    )
    assert not Agent.objects.exists()

    schema.fill('{"type": "object", "properties": {"total": {"type": "number"}}}')
    alice_page.get_by_role("button", name="Add MCP server").click()
    alice_page.get_by_label("Server name").fill("billing")
    alice_page.get_by_label("Server URL").fill("https://mcp.example.com/mcp")
    alice_page.get_by_label("Its tools require approval").check()
    alice_page.get_by_role("button", name="Create agent").click()

    expect(alice_page.locator(".chat-header h1")).to_have_text("Billing")
    agent = Agent.objects.get()
    assert [flow.name for flow in agent.approval_flows.all()] == ["Send invoice"]
    assert agent.output_schema["properties"] == {"total": {"type": "number"}}
    assert agent.mcp_servers[0]["requires_approval"] is True
