"""Pinned outputs in the builder: pin the last output, test runs use it (and
show the pin), "Run this node", unpin; bad JSON is shown next to the field."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger
from tests.processes import needs_postgres


def api_flow(owner):
    nodes, edges = chain(
        trigger(),
        code("fetch", "return {items: [input.name, 'b']};"),
        code("count", "return {count: prev.items.length};"),
    )
    for index, item in enumerate(nodes):
        item["position"] = {"x": 40 + 240 * index, "y": 100}
    return FlowFactory(created_by=owner, name="Pins", nodes=nodes, edges=edges)


def run_in_builder(page):
    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"name": "Ada"}')
    page.get_by_role("button", name="Run flow").click()
    status = page.locator("#run-result").get_by_test_id("run-status")
    expect(status).to_have_text("succeeded")


def test_a_pinned_output_stands_in_for_the_node_in_test_runs(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = api_flow(alice)
    open_builder(page, live_url, flow)
    run_in_builder(page)

    canvas_node(page, "Fetch").click()
    pins = page.get_by_test_id("pins")
    pins.get_by_role("button", name="Pin last output").click()
    expect(pins.locator("legend")).to_have_text("📌 Pinned output")
    expect(canvas_node(page, "Fetch")).to_have_class(re.compile("pinned"))
    flow.refresh_from_db()
    assert flow.pins == {"fetch": {"items": ["Ada", "b"]}}

    pins.get_by_label("Pinned output (JSON)").fill('{"items": [1, 2, 3, 4]}')
    pins.get_by_role("button", name="Save pinned output").click()
    expect(pins.get_by_label("Pinned output (JSON)")).to_have_value(
        re.compile(r'"items": \[\n\s+1,')  # pretty-printed: saved, shown again
    )
    run_in_builder(page)
    result = page.locator("#run-result")
    expect(result.locator('.step[data-node-id="count"] .step-output')).to_contain_text(
        '"count": 4'
    )
    expect(result.locator('.step[data-node-id="fetch"] .step-logs')).to_have_text(
        "Pinned output: the node did not run."
    )

    canvas_node(page, "Count").click()
    page.get_by_test_id("pins").get_by_role("button", name="Run this node").click()
    expect(result.locator('.step[data-node-id="count"] .step-output')).to_contain_text(
        '"count": 4'
    )

    canvas_node(page, "Fetch").click()
    page.get_by_test_id("pins").get_by_role("button", name="Unpin").click()
    expect(canvas_node(page, "Fetch")).not_to_have_class(re.compile("pinned"))
    flow.refresh_from_db()
    assert flow.pins == {}
    assert page_errors == []


@needs_postgres
def test_pin_last_output_pins_the_background_runs_output(
    alice_page, live_url, alice, processes, page_errors
):
    processes.worker()
    page = alice_page
    flow = api_flow(alice)
    open_builder(page, live_url, flow)
    run_in_builder(page)  # a run in the request first: its output is "Ada"'s
    page.get_by_label("Input (JSON object)").fill('{"name": "Grace"}')
    page.get_by_label(re.compile("Run in the background")).check()

    page.get_by_role("button", name="Run flow").click()
    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text(
        "succeeded", timeout=30_000
    )
    canvas_node(page, "Fetch").click()
    page.get_by_test_id("pins").get_by_role("button", name="Pin last output").click()

    expect(page.get_by_test_id("pins").locator("legend")).to_have_text(
        "📌 Pinned output"
    )
    flow.refresh_from_db()
    assert flow.pins == {"fetch": {"items": ["Grace", "b"]}}
    assert page_errors == []


def test_invalid_pin_json_is_shown_next_to_the_field(alice_page, live_url, alice):
    page = alice_page
    flow = api_flow(alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Fetch").click()
    pins = page.get_by_test_id("pins")

    pins.get_by_label("Pinned output (JSON)").fill("{items: ")
    pins.get_by_role("button", name="Pin this JSON").click()

    expect(pins.locator(".field-error")).to_contain_text("Not valid JSON")
    flow.refresh_from_db()
    assert flow.pins == {}
