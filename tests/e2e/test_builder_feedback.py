"""What the builder tells the user when a save cannot go through."""

from __future__ import annotations

import re

from django.test import Client
from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder, save_screenshot
from tests.factories import FlowFactory


def test_a_validation_error_is_shown_on_its_node_and_next_to_its_field(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.get_by_label("JavaScript").fill("")
    page.get_by_role("button", name="Save").click()

    greet = canvas_node(page, "Greet")
    expect(greet).to_have_class(re.compile("has-error"))
    expect(canvas_node(page, "Webhook")).not_to_have_class(re.compile("has-error"))
    field = page.locator('#inspector .field[data-field="data.code"]')
    expect(field.locator(".field-error")).to_have_text("Code must be non-empty text.")
    expect(page.locator("#banner")).to_contain_text("Not saved")
    expect(page.locator("#save-state")).to_have_text("Unsaved changes")
    save_screenshot(page, "builder-validation")
    flow.refresh_from_db()
    assert flow.version == 1
    assert flow.nodes[1]["data"]["code"].startswith("return")

    page.get_by_label("JavaScript").fill("return 1;")
    expect(greet).not_to_have_class(re.compile("has-error"))
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    expect(page.locator("#banner")).to_be_hidden()


def test_a_second_trigger_is_marked_on_the_canvas(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Webhook").click()
    page.get_by_role("button", name="Save").click()

    expect(page.locator(".drawflow-node.has-error")).to_have_count(1)
    expect(page.locator(".drawflow-node.has-error .node-name")).to_have_text(
        "Webhook 2"
    )
    expect(page.locator("#inspector .field-error-list")).to_contain_text(
        "A flow has at most one webhook trigger node."
    )


def test_saving_over_someone_elses_save_offers_a_reload(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice, name="Mine")
    open_builder(page, live_url, flow)

    other_tab = Client()
    other_tab.force_login(alice)
    response = other_tab.patch(
        f"/api/flows/{flow.id}",
        {"name": "Renamed elsewhere"},
        content_type="application/json",
    )
    assert response.status_code == 200

    page.get_by_label("Flow name").fill("Renamed here")
    page.keyboard.press("Control+s")

    banner = page.locator("#banner")
    expect(banner).to_contain_text("Someone else saved this flow")
    flow.refresh_from_db()
    assert flow.name == "Renamed elsewhere"
    assert flow.version == 2

    banner.get_by_role("button", name="Reload the latest version").click()
    page.wait_for_selector("body[data-builder-ready]")
    expect(page.get_by_label("Flow name")).to_have_value("Renamed elsewhere")
    expect(page.locator("#banner")).to_be_hidden()


def test_a_syntax_error_is_shown_next_to_the_code_at_save(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    page.locator(".drawflow-node.kind-code").first.click()

    page.get_by_test_id("code-editor").fill("return {a: 1;")
    page.get_by_role("button", name="Save").click()

    error = page.locator('#inspector .field[data-field="data.code"] > .field-error')
    expect(error).to_contain_text("SyntaxError")
    expect(error).to_contain_text("line 1")
    flow.refresh_from_db()
    assert "{a: 1;" not in flow.nodes[1]["data"]["code"]
