"""Editing a graph on the canvas and getting the same graph back after a reload."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, connect, open_builder, save_screenshot
from tests.factories import FlowFactory

CODE = "return {greeting: 'hi ' + input.name};"


def test_a_user_builds_saves_and_reloads_a_two_node_flow(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice, name="Greeter", nodes=[], edges=[])
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Webhook").click()
    page.locator("#palette").get_by_role("button", name="Code").click()
    webhook, code = canvas_node(page, "Webhook"), canvas_node(page, "Code")
    connect(page, webhook, code)
    expect(page.locator(".drawflow .connection")).to_have_count(1)

    code.click()
    page.get_by_label("Node name").fill("Greet")
    page.get_by_label("JavaScript").fill(CODE)
    expect(page.locator("#save-state")).to_have_text("Unsaved changes")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert [(n["id"], n["type"], n["name"]) for n in flow.nodes] == [
        ("webhook_1", "webhook", "Webhook"),
        ("code_1", "code", "Greet"),
    ]
    assert flow.nodes[1]["data"]["code"] == CODE
    assert [(e["source"], e["target"], e["sourceHandle"]) for e in flow.edges] == [
        ("webhook_1", "code_1", None)
    ]
    assert flow.version == 2

    page.reload()
    page.wait_for_selector("body[data-builder-ready]")
    expect(page.locator(".drawflow-node")).to_have_count(2)
    expect(page.locator(".drawflow .connection")).to_have_count(1)
    canvas_node(page, "Greet").click()
    expect(page.get_by_label("JavaScript").locator(".cm-line")).to_have_text(
        CODE.split("\n")
    )
    expect(page.locator("#save-state")).to_have_text("All changes saved")
    save_screenshot(page, "builder")
    assert page_errors == []


def test_positions_are_saved_after_dragging_a_node(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    before = flow.nodes[1]["position"]

    node = canvas_node(page, "Greet")
    box = node.locator(".node-name").bounding_box()
    page.mouse.move(box["x"] + 10, box["y"] + 5)
    page.mouse.down()
    page.mouse.move(box["x"] + 110, box["y"] + 65, steps=5)
    page.mouse.up()
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    shown = node.evaluate("el => [parseFloat(el.style.left), parseFloat(el.style.top)]")

    flow.refresh_from_db()
    after = flow.nodes[1]["position"]
    assert after["x"] > before["x"] + 50
    assert after["y"] > before["y"] + 30
    assert [after["x"], after["y"]] == [round(value) for value in shown]
    assert flow.nodes[1]["id"] == "greet"
    assert flow.edges[0]["id"] == "e1"


def test_the_delete_key_removes_the_selected_node_and_its_edges(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.keyboard.press("Delete")
    expect(page.locator(".drawflow-node")).to_have_count(1)
    expect(page.locator(".drawflow .connection")).to_have_count(0)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert [node["id"] for node in flow.nodes] == ["trigger"]
    assert flow.edges == []


def test_the_code_editor_indents_a_new_line_inside_a_block(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Greet").click()

    editor = page.get_by_label("JavaScript")
    editor.fill("if (x) {")
    editor.press("End")
    editor.press("Enter")
    editor.type("return 1;")

    expect(editor.locator(".cm-line")).to_have_text(["if (x) {", "  return 1;"])
    gutter = page.locator("#inspector .cm-lineNumbers .cm-gutterElement:visible")
    expect(gutter).to_have_text(["1", "2"])


def test_a_condition_node_connects_from_its_false_output(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    # Added with Greet selected: placed right of it and connected from it.
    page.locator("#palette").get_by_role("button", name="Condition").click()
    # A click on empty canvas selects nothing: the next node connects to nothing.
    page.locator("#drawflow").click(position={"x": 20, "y": 400})
    page.locator("#palette").get_by_role("button", name="Response").click()
    condition, response = canvas_node(page, "Condition"), canvas_node(page, "Response")
    expect(condition.locator(".node-handles")).to_have_text("truefalse")
    connect(page, condition, response, output="output_2")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    links = {(e["source"], e["target"], e["sourceHandle"]) for e in flow.edges}
    assert links == {
        ("trigger", "greet", None),
        ("greet", "condition_1", None),
        ("condition_1", "response_1", "false"),
    }


def test_the_delete_key_removes_a_selected_connection(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    start = canvas_node(page, "Webhook").locator(".output_1").bounding_box()
    end = canvas_node(page, "Greet").locator(".input_1").bounding_box()
    middle_x = (start["x"] + start["width"] + end["x"]) / 2
    page.mouse.click(middle_x, start["y"] + start["height"] / 2)
    page.keyboard.press("Delete")
    expect(page.locator(".drawflow .connection")).to_have_count(0)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    assert flow.edges == []
    assert len(flow.nodes) == 2


def test_the_zoom_buttons_zoom_the_canvas(alice_page, live_url, alice):
    page = alice_page
    open_builder(page, live_url, FlowFactory(created_by=alice))

    page.get_by_role("button", name="Zoom in").click()

    expect(page.locator("#zoom-reset")).to_have_text("110%")
    transform = page.locator(".drawflow").evaluate("el => el.style.transform")
    assert "scale(1.1)" in transform
