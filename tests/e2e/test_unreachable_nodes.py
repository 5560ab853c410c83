"""A node left unconnected on the canvas is skipped with a reason, not run."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import canvas_node, connect, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger


def test_running_a_flow_with_an_unconnected_node_skips_it_and_says_why(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    nodes = [
        trigger(),
        code("greet", "return {hi: input.name};"),
        code("draft", "throw new Error('half-written');"),
    ]
    for item, x in zip(nodes, (40, 260, 260), strict=True):
        item["position"] = {"x": x, "y": 60 if item["id"] != "draft" else 220}
    flow = FlowFactory(
        created_by=alice, nodes=nodes, edges=[edge("trigger", "greet")], name="Drafts"
    )
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(canvas_node(page, "Draft")).to_have_class(re.compile("run-skipped"))
    draft = result.locator('.step[data-node-id="draft"]')
    expect(draft.locator(".step-error")).to_contain_text(
        "no path from a trigger node leads to this node"
    )
    run = FlowRun.objects.get(flow=flow)
    assert run.status == "succeeded"
    assert run.steps.get(node_id="draft").status == "skipped"

    page.goto(f"{live_url}/runs/{run.id}/")
    expect(page.locator(".timeline-step.status-skipped")).to_contain_text(
        "no path from a trigger node leads to this node"
    )
    assert page_errors == []


def test_an_unconnected_node_is_greyed_with_a_warning_until_it_is_connected(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    nodes = [trigger(), code("greet", "return 1;"), code("draft", "return 2;")]
    for item, (x, y) in zip(nodes, ((40, 60), (300, 60), (300, 260)), strict=True):
        item["position"] = {"x": x, "y": y}
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("trigger", "greet")])
    open_builder(page, live_url, flow)
    draft, greet = canvas_node(page, "Draft"), canvas_node(page, "Greet")

    expect(draft).to_have_class(re.compile("unreachable"))
    warning = draft.get_by_role("note")
    expect(warning).to_have_text("⚠ Not connected to a trigger")
    expect(warning).to_have_attribute(
        "title", "Not connected to a trigger: skipped when the flow runs"
    )
    expect(greet).not_to_have_class(re.compile("unreachable"))

    connect(page, greet, draft)

    expect(draft).not_to_have_class(re.compile("unreachable"))
    expect(draft.get_by_role("note")).to_have_count(0)

    page.keyboard.press("Control+z")  # undoing the connection greys it again

    expect(draft).to_have_class(re.compile("unreachable"))
    assert page_errors == []
