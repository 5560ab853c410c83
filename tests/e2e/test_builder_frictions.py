"""Small frictions of issue 14 item 8: the inspector on click, the one-time secret
in view, condition labels beside their ports, unique names, names in validation
messages, palette search."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder
from tests.factories import FlowFactory


def condition_flow():
    trigger = {
        "id": "trigger",
        "type": "webhook",
        "name": "Webhook",
        "position": {"x": 40, "y": 80},
        "data": {"method": "POST"},
    }
    check = {
        "id": "check",
        "type": "condition",
        "name": "Check",
        "position": {"x": 300, "y": 80},
        "data": {"expression": "input.amount > 100"},
    }
    edges = [{"id": "e1", "source": "trigger", "target": "check", "sourceHandle": None}]
    return [trigger, check], edges


def test_clicking_the_selected_node_again_shows_the_inspector(
    alice_page, live_url, alice
):
    page = alice_page
    open_builder(page, live_url, FlowFactory(created_by=alice))

    canvas_node(page, "Greet").click()
    page.get_by_role("tab", name="Run").click()
    expect(page.locator("#pane-inspector")).to_be_hidden()
    canvas_node(page, "Greet").click()

    expect(page.locator("#pane-inspector")).to_be_visible()
    expect(page.get_by_label("Node name")).to_have_value("Greet")


def test_a_new_signing_secret_scrolls_into_view(alice_page, live_url, alice):
    page = alice_page
    page.set_viewport_size({"width": 1280, "height": 560})
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    page.get_by_role("button", name="Add secret").click()

    secret = page.locator("#secret-value")
    expect(secret).to_have_value(re.compile(r"^whsec_"))
    expect(secret).to_be_in_viewport()


def test_condition_labels_stay_beside_their_ports_after_a_run(
    alice_page, live_url, alice
):
    page = alice_page
    nodes, edges = condition_flow()
    open_builder(
        page, live_url, FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    )

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()
    expect(page.get_by_test_id("run-status")).to_have_text("succeeded")

    check = canvas_node(page, "Check")
    expect(check.locator(".node-run")).to_contain_text("succeeded")
    labels = check.locator(".node-handles span")
    for index, port in enumerate(["output_1", "output_2"]):
        label = labels.nth(index).bounding_box()
        dot = check.locator(f".outputs .{port}").bounding_box()
        label_middle = label["y"] + label["height"] / 2
        dot_middle = dot["y"] + dot["height"] / 2
        assert abs(label_middle - dot_middle) <= 6, (index, label, dot)


def test_palette_search_filters_and_enter_adds_with_a_unique_name(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    search = page.get_by_label("Search nodes")

    search.fill("code")
    expect(page.locator("#palette li:visible")).to_have_count(1)
    search.press("Enter")
    search.fill("zzz")
    expect(page.locator("#palette li:visible")).to_have_count(0)
    expect(page.locator("#palette-none")).to_be_visible()
    search.fill("url")  # matches the HTTP request's description
    expect(page.locator("#palette li:visible")).to_have_text(["HTTP request"])
    search.fill("")
    page.locator('#palette [data-kind="code"]').click()

    expect(canvas_node(page, "Code")).to_have_count(1)
    expect(canvas_node(page, "Code 2")).to_have_count(1)


def test_a_cycle_is_reported_with_node_names(alice_page, live_url, alice):
    page = alice_page
    nodes, edges = condition_flow()
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    open_builder(page, live_url, flow)

    canvas_node(page, "Check").click()
    page.locator('#palette [data-kind="delay"]').click()
    connect(page, canvas_node(page, "Check"), canvas_node(page, "Delay"))
    connect(page, canvas_node(page, "Delay"), canvas_node(page, "Check"))
    page.get_by_role("button", name="Save").click()

    banner = page.locator("#banner")
    expect(banner).to_contain_text("cycle through nodes: “Check”, “Delay”")
    expect(banner).not_to_contain_text("delay_1")
    flow.refresh_from_db()
    assert len(flow.nodes) == 2
