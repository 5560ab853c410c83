"""The mcp_tool node in the builder: from the palette, its inspector, a run."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder
from tests.factories import FlowFactory


def test_a_user_calls_an_mcp_tool_from_a_flow(
    alice_page, live_url, alice, page_errors, mcp_server, allow_loopback
):
    flow = FlowFactory(created_by=alice, name="Sum", nodes=[], edges=[])
    page = alice_page
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Webhook").click()
    page.locator("#palette").get_by_role("button", name="MCP tool").click()
    webhook, tool = canvas_node(page, "Webhook"), canvas_node(page, "MCP tool")
    connect(page, webhook, tool)
    tool.click()
    page.get_by_label("Server URL").fill(mcp_server)
    page.get_by_label("Tool", exact=True).fill("add")
    page.get_by_label("Arguments").fill('{"a": "{{ input.a }}", "b": 2}')
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"a": 40}')
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(result.locator(".step-output").last).to_contain_text('"result": 42')
    assert page_errors == []
