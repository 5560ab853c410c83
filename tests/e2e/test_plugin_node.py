"""A plugin's node kind in the browser: the example plugin's `hello`
(examples/weir-plugin-hello) is added from the palette, edited in the
inspector, saved and run like a built-in (docs/plugins.md)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder, save_screenshot
from tests.factories import FlowFactory


def test_a_user_adds_the_plugins_hello_node_from_the_palette_and_runs_it(
    alice_page, live_url, alice, page_errors
):
    flow = FlowFactory(created_by=alice, name="Greeter", nodes=[], edges=[])
    page = alice_page
    open_builder(page, live_url, flow)

    page.locator("#palette-search").fill("hello")
    page.locator("#palette").get_by_role("button", name="Hello").click()
    page.locator("#palette-search").fill("")
    page.locator("#palette").get_by_role("button", name="Webhook").click()
    webhook, hello = canvas_node(page, "Webhook"), canvas_node(page, "Hello")
    connect(page, webhook, hello)
    hello.click()
    expect(page.get_by_label("Name", exact=True)).to_have_value("{{ input.name }}")
    page.get_by_label("Greeting", exact=True).fill("")
    page.keyboard.press("Control+s")
    field_error = page.locator(".field-error", has_text="Greeting must be non-empty")
    expect(field_error).to_be_visible()

    page.get_by_label("Greeting", exact=True).fill("Bonjour")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"name": "Ada"}')
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    output = result.locator('.step[data-node-id="hello_1"] .step-output')
    expect(output).to_contain_text('"message": "Bonjour, Ada!"')
    save_screenshot(page, "plugin-hello")
    flow.refresh_from_db()
    assert [node["type"] for node in flow.nodes] == ["hello", "webhook"]
    assert page_errors == []
