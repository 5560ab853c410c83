"""Undo and redo of graph changes in the builder (static/js/builder/undo.js)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder
from tests.factories import FlowFactory


def click_empty_canvas(page):
    page.locator("#drawflow").click(position={"x": 300, "y": 640})


def drag_by(page, node, dx, dy):
    box = node.locator(".node-name").bounding_box()
    page.mouse.move(box["x"] + 10, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + 10 + dx, box["y"] + 5 + dy, steps=5)
    page.mouse.up()


def test_every_kind_of_change_is_undone_and_redone(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    nodes, connections = page.locator(".drawflow-node"), page.locator(".connection")

    canvas_node(page, "Greet").click()
    page.locator('#palette [data-kind="delay"]').click()  # add
    delay = page.locator(".drawflow-node.kind-delay")
    connect(page, canvas_node(page, "Greet"), delay)  # connect
    before_move = delay.evaluate("el => el.style.left")
    drag_by(page, delay, 0, 120)  # move
    delay.click()
    page.get_by_label("Node name").fill("Wait")  # inspector edit
    click_empty_canvas(page)
    start = canvas_node(page, "Webhook").locator(".output_1").bounding_box()
    end = canvas_node(page, "Greet").locator(".input_1").bounding_box()
    page.mouse.click((start["x"] + start["width"] + end["x"]) / 2, start["y"] + 6)
    page.keyboard.press("Delete")  # disconnect
    canvas_node(page, "Greet").click()
    page.keyboard.press("Delete")  # delete a node (and its connection)
    expect(nodes).to_have_count(2)
    expect(connections).to_have_count(0)

    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(3)
    expect(connections).to_have_count(1)
    page.keyboard.press("Control+z")
    expect(connections).to_have_count(2)
    page.keyboard.press("Control+z")
    expect(canvas_node(page, "Delay")).to_have_count(1)
    expect(canvas_node(page, "Wait")).to_have_count(0)
    page.keyboard.press("Control+z")
    assert delay.evaluate("el => el.style.left") == before_move
    page.keyboard.press("Control+z")
    expect(connections).to_have_count(1)
    page.keyboard.press("Control+z")
    expect(nodes).to_have_count(2)
    expect(page.get_by_role("button", name="Undo")).to_be_disabled()

    for key in ["Control+Shift+z"] * 3 + ["Control+y"] * 3:
        page.keyboard.press(key)
    expect(nodes).to_have_count(2)
    expect(canvas_node(page, "Wait")).to_have_count(1)
    expect(connections).to_have_count(0)
    expect(page.get_by_role("button", name="Redo")).to_be_disabled()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert [(node["id"], node["name"]) for node in flow.nodes] == [
        ("trigger", "Webhook"),
        ("delay_1", "Wait"),
    ]
    assert flow.edges == []
    assert page_errors == []


def test_a_hundred_steps_are_undone_and_redone(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)
    search = page.get_by_label("Search nodes")
    search.fill("delay")

    for _ in range(101):
        search.press("Enter")  # adds a Delay node, as a palette click does
    nodes = page.locator(".drawflow-node")
    expect(nodes).to_have_count(101)
    click_empty_canvas(page)
    for _ in range(101):
        page.keyboard.press("Control+z")
    expect(nodes).to_have_count(0)
    expect(page.locator("#save-state")).to_have_text("All changes saved")
    for _ in range(100):
        page.keyboard.press("Control+y")
    expect(nodes).to_have_count(100)
