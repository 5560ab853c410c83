"""Issue 38's measure a user feels: webhook → HTTP request → code → switch →
two responses, built from an empty flow list in at most 20 actions (the issue
counted about 35), saved, and run through its webhook URL with real HTTP, the
switch choosing the response.

The other half of that measure, "a failed run is retried from its failed node
in 2 clicks", is tests/e2e/test_run_again.py::
test_a_failed_run_is_retried_from_its_failed_node_in_two_clicks."""

from __future__ import annotations

import httpx
from playwright.sync_api import expect

from flows.models import Flow
from tests.e2e.pages import canvas_node
from tests.e2e.walk import Walk
from tests.http_server import base

BOUND = 20  # docs/builder.md, "Measured"


def test_a_new_user_builds_and_runs_the_switch_flow_in_at_most_20_actions(
    alice_page, live_url, alice, server, allow_loopback, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/")
    walk = Walk(page)
    inspector = page.locator("#inspector")
    palette = page.locator("#palette")

    walk.fill(page.get_by_label("New flow name"), "Orders")
    walk.press("Enter")
    page.wait_for_selector("body[data-builder-ready]")
    walk.click(palette.get_by_role("button", name="Webhook"))
    walk.click(palette.get_by_role("button", name="HTTP request"))
    walk.fill(inspector.get_by_label("URL", exact=True), base(server) + "/json")
    walk.click(palette.get_by_role("button", name="Code"))
    walk.fill(
        inspector.get_by_test_id("code-editor"),
        "return { total: input.amount * prev.body.items.length };",
    )
    walk.click(palette.get_by_role("button", name="Switch"))
    expressions = inspector.get_by_label("Expression", exact=True)
    walk.fill(expressions.nth(0), "prev.total > 1000")
    walk.fill(expressions.nth(1), "prev.total <= 1000")
    walk.click(palette.get_by_role("button", name="Response"))
    walk.fill(inspector.get_by_label("Body", exact=True), '{"route": "large"}')
    walk.click(canvas_node(page, "Switch"))
    walk.click(palette.get_by_role("button", name="Response"))
    walk.fill(inspector.get_by_label("Body", exact=True), '{"route": "small"}')
    walk.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    url = page.locator("#webhook-url").inner_text()
    seconds = walk.stop()

    large = httpx.post(url, json={"amount": 800}, timeout=30)
    small = httpx.post(url, json={"amount": 300}, timeout=30)
    assert (large.status_code, large.json()) == (200, {"route": "large"})
    assert (small.status_code, small.json()) == (200, {"route": "small"})
    assert server.hits == ["/json", "/json"]
    flow = Flow.objects.get(name="Orders")
    names = {node["id"]: node["name"] for node in flow.nodes}
    switch = next(node["id"] for node in flow.nodes if node["type"] == "switch")
    assert sorted(
        (names[edge["target"]], edge["sourceHandle"])
        for edge in flow.edges
        if edge["source"] == switch
    ) == [("Response", "large"), ("Response 2", "small")]
    print(f"walk: {walk.actions} actions, {seconds} s: {walk.log}")
    assert walk.actions <= BOUND, walk.log
    assert page_errors == []
