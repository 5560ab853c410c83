"""Small things a user trips over: the /flows/ address, the Agents page, /tool names."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import save_screenshot
from tests.factories import AgentFactory, FlowFactory


def test_flows_address_leads_to_the_flow_list(alice_page, live_url, alice):
    FlowFactory(created_by=alice, name="Greeter")

    alice_page.goto(f"{live_url}/flows/")

    expect(alice_page).to_have_url(f"{live_url}/")
    expect(alice_page.get_by_role("heading", name="Flows")).to_be_visible()
    expect(alice_page.locator("tr.flow-row .flow-link")).to_have_text(["Greeter"])


def test_the_agents_page_lays_each_agent_out_on_one_row(alice_page, live_url, alice):
    AgentFactory(name="Helper", description="Answers questions about orders.")
    AgentFactory(name="Writer", model="openai:gpt-4o-mini", description="")

    alice_page.goto(f"{live_url}/agents/")

    cards = alice_page.locator(".agent-card")
    expect(cards).to_have_count(2)
    save_screenshot(alice_page, "agents")
    for index in range(2):
        card = cards.nth(index).bounding_box()
        chat = cards.nth(index).get_by_role("link", name="Chat").bounding_box()
        # The Chat button sits at the right end of its card, vertically centred.
        assert card["x"] + card["width"] - (chat["x"] + chat["width"]) < 40
        middle = card["y"] + card["height"] / 2
        assert abs(chat["y"] + chat["height"] / 2 - middle) < 4
    intro = alice_page.get_by_text("Assistants backed by a language model")
    heading = alice_page.get_by_role("heading", name="Agents")
    # The introduction reads under the heading, not off at the far right.
    assert intro.bounding_box()["x"] == heading.bounding_box()["x"]
    assert intro.bounding_box()["y"] > heading.bounding_box()["y"]


def test_tool_names_match_in_any_case_in_chat(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, name="Say hello")
    agent = AgentFactory(created_by=alice, model="echo:demo")
    agent.tools.add(flow)
    alice_page.goto(f"{live_url}/agents/{agent.id}/")

    alice_page.locator("#chat-input").fill('/tool say HELLO {"name": "Ada"}')
    alice_page.locator("#chat-input").press("Enter")

    tool = alice_page.locator("details.chat-tool")
    expect(tool.locator("summary")).to_have_text("Tool say_hello · succeeded")
    assert FlowRun.objects.get(trigger="agent").flow == flow
