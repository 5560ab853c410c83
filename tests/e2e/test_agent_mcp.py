"""The agent page in Chromium: connect an MCP server, then the agent calls its tool."""

from __future__ import annotations

from playwright.sync_api import expect

from agents.models import Agent
from tests.factories import make_credential


def test_a_user_connects_an_mcp_server_and_the_agent_calls_its_tool(
    alice_page, alice, live_url, mcp_server, allow_loopback
):
    key = make_credential(alice, name="mcp_key", secrets={"token": "s3cret"})
    alice_page.goto(f"{live_url}/agents/new/")
    alice_page.get_by_label("Name", exact=True).fill("Calculator")
    expect(alice_page.locator("#agent-no-mcp")).to_be_visible()
    alice_page.get_by_role("button", name="Add MCP server").click()
    alice_page.get_by_label("Server name").fill("calc")
    alice_page.get_by_label("Server URL").fill(mcp_server)
    alice_page.get_by_label("Credential").select_option(label="mcp_key (bearer)")
    alice_page.get_by_label("Allowed tools").fill("add, echo")
    alice_page.get_by_role("button", name="Create agent").click()

    expect(alice_page.locator(".chat-header h1")).to_have_text("Calculator")
    agent = Agent.objects.get(name="Calculator")
    assert agent.mcp_servers[0]["url"] == mcp_server
    assert agent.mcp_servers[0]["credential"] == str(key.pk)
    assert agent.mcp_servers[0]["allowed_tools"] == ["add", "echo"]

    # The chat's module script wires Enter; it has run once the DOM is loaded.
    alice_page.wait_for_load_state("domcontentloaded")
    alice_page.locator("#chat-input").fill('/tool mcp_calc_add {"a": 20, "b": 22}')
    alice_page.locator("#chat-input").press("Enter")
    expect(alice_page.locator(".chat-assistant").last).to_contain_text("42")
    alice_page.locator("#chat-input").fill('/tool mcp_calc_slow {"seconds": 0}')
    alice_page.locator("#chat-input").press("Enter")
    expect(alice_page.locator(".chat-assistant").last).to_contain_text("no tool")


def test_a_bad_server_url_shows_under_its_row(alice_page, live_url):
    alice_page.goto(f"{live_url}/agents/new/")
    alice_page.get_by_label("Name", exact=True).fill("Bad")
    alice_page.get_by_role("button", name="Add MCP server").click()
    alice_page.get_by_label("Server name").fill("Bad Name")
    alice_page.get_by_label("Server URL").fill("https://mcp.example.com/mcp")
    alice_page.get_by_role("button", name="Create agent").click()
    expect(alice_page.locator(".mcp-server .field-error")).to_contain_text("name")
    assert not Agent.objects.exists()


def test_a_bad_allowed_tool_shows_under_its_row_in_words(alice_page, live_url):
    alice_page.goto(f"{live_url}/agents/new/")
    alice_page.get_by_label("Name", exact=True).fill("Bad")
    alice_page.get_by_role("button", name="Add MCP server").click()
    alice_page.get_by_label("Server name").fill("gh")
    alice_page.get_by_label("Server URL").fill("https://mcp.example.com/mcp")
    alice_page.get_by_label("Allowed tools").fill("search, " + "x" * 201)
    alice_page.get_by_role("button", name="Create agent").click()
    problem = alice_page.locator(".mcp-server .field-error")
    expect(problem).to_have_text(
        "allowed_tools: Ensure this field has no more than 200 characters."
    )
    assert not Agent.objects.exists()
