"""`{{ }}` template fields: completions from the last run and a live preview."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger


def test_a_template_field_completes_last_run_fields_and_previews_the_result(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    nodes, edges = chain(trigger(), node("shape", "transform", values={"who": "x"}))
    flow = FlowFactory(created_by=alice, name="Templates", nodes=nodes, edges=edges)
    open_builder(page, live_url, flow)
    page.get_by_role("tab", name="Run").click()
    page.locator("#run-input").fill('{"name": "Ada", "city": "Paris"}')
    page.get_by_role("button", name="Run flow").click()
    expect(page.locator("#run-result").get_by_test_id("run-status")).to_have_text(
        "succeeded"
    )
    canvas_node(page, "Shape").click()
    value = page.get_by_label("Value")

    value.fill("")
    value.press_sequentially("Hi {{ input.c")
    options = page.get_by_role("listbox", name="Fields of the last run")
    expect(options.get_by_role("option")).to_have_text(["city"])
    page.keyboard.press("Enter")
    value.press_sequentially(" }}!")

    expect(value).to_have_value("Hi {{ input.city }}!")
    expect(page.locator(".template-preview")).to_have_text(
        "Preview (last run): Hi Paris!"
    )
    value.press_sequentially(" {{ input.name.toUpperCase() }}")
    expect(page.locator(".template-preview")).to_have_text(
        "Preview (last run): Hi Paris! ‹input.name.toUpperCase()›"
    )
    assert page_errors == []
