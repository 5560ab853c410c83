"""Every builder action by keyboard: select and move nodes, connect through the
inspector's menu, visible focus, labelled controls (builder/keyboard_access.js,
builder/connect_menu.js)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import open_builder
from tests.factories import FlowFactory


def test_a_flow_is_built_without_the_mouse(alice_page, live_url, alice, page_errors):
    page = alice_page
    flow = FlowFactory(created_by=alice, edges=[])
    open_builder(page, live_url, flow)

    search = page.get_by_label("Search nodes")
    search.focus()
    search.fill("delay")
    search.press("Enter")
    greet = page.get_by_role("button", name="Code Greet")
    greet.focus()
    outline = greet.evaluate("el => getComputedStyle(el).outlineStyle")
    assert outline != "none"
    for _ in range(3):
        page.keyboard.press("ArrowDown")
    page.keyboard.press("Shift+ArrowRight")
    page.keyboard.press("Enter")
    expect(page.get_by_label("Node name")).to_be_focused()

    page.get_by_label("Connect output to").select_option(label="Delay")
    page.get_by_role("button", name="Connect", exact=True).click()
    expect(page.locator(".connection")).to_have_count(1)
    page.get_by_role("button", name="Webhook Webhook").focus()
    page.get_by_label("Connect output to").select_option(label="Greet")
    page.get_by_label("Connect output to").press("Tab")
    page.keyboard.press("Enter")
    expect(page.locator(".connection")).to_have_count(2)
    page.get_by_role("button", name="Disconnect Output from Greet").press("Enter")
    expect(page.locator(".connection")).to_have_count(1)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert flow.nodes[1]["position"] == {"x": 320 + 50, "y": 80 + 30}
    assert [(e["source"], e["target"]) for e in flow.edges] == [("greet", "delay_1")]
    assert page_errors == []
