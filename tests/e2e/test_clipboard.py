"""Copy, paste and duplicate nodes, and where new nodes land (builder/clipboard.js,
builder/placement.js)."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory


def boxes(page):
    return [node.bounding_box() for node in page.locator(".drawflow-node").all()]


def overlaps(a, b):
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def assert_apart_and_in_view(page):
    canvas = page.locator("#drawflow").bounding_box()
    placed = boxes(page)
    for index, box in enumerate(placed):
        assert box["x"] >= canvas["x"] and box["y"] >= canvas["y"]
        assert box["x"] + box["width"] <= canvas["x"] + canvas["width"]
        assert box["y"] + box["height"] <= canvas["y"] + canvas["height"]
        assert not any(overlaps(box, other) for other in placed[index + 1 :])


def test_ctrl_d_duplicates_a_node_with_a_fresh_id_and_a_unique_name(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.keyboard.press("Control+d")
    page.keyboard.press("Control+d")

    expect(canvas_node(page, "Greet 3")).to_be_visible()
    assert_apart_and_in_view(page)
    page.keyboard.press("Control+z")
    expect(page.locator(".drawflow-node")).to_have_count(3)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert [(node["id"], node["name"]) for node in flow.nodes] == [
        ("trigger", "Webhook"),
        ("greet", "Greet"),
        ("code_1", "Greet 2"),
    ]
    assert flow.nodes[2]["data"] == flow.nodes[1]["data"]
    assert page_errors == []


def test_nodes_and_their_edge_are_copied_into_another_flow(
    alice_page, live_url, alice, context
):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = alice_page
    source = FlowFactory(created_by=alice)
    existing = {**source.nodes[1], "id": "code_1", "position": {"x": 40, "y": 300}}
    target = FlowFactory(created_by=alice, name="Other", nodes=[existing], edges=[])
    open_builder(page, live_url, source)
    page.locator("#drawflow").click(position={"x": 300, "y": 640})
    page.keyboard.press("Control+a")
    page.keyboard.press("Control+c")
    copied = json.loads(page.evaluate("navigator.clipboard.readText()"))
    assert [node["id"] for node in copied["nodes"]] == ["trigger", "greet"]
    assert [(e["source"], e["target"]) for e in copied["edges"]] == [
        ("trigger", "greet")
    ]

    open_builder(page, live_url, target)
    page.locator("#drawflow").click(position={"x": 300, "y": 640})
    page.keyboard.press("Control+v")
    expect(page.locator(".drawflow-node")).to_have_count(3)
    expect(page.locator(".connection")).to_have_count(1)
    assert_apart_and_in_view(page)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    target.refresh_from_db()
    names = [(node["id"], node["name"]) for node in target.nodes]
    assert names == [
        ("code_1", "Greet"),
        ("webhook_1", "Webhook"),
        ("code_2", "Greet 2"),
    ]
    assert [(e["source"], e["target"]) for e in target.edges] == [
        ("webhook_1", "code_2")
    ]


def test_a_flow_copied_from_the_api_pastes_into_the_builder(
    alice_page, live_url, alice, alice_client, context
):
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    page = alice_page
    api_flow = alice_client.get(f"/api/flows/{FlowFactory(created_by=alice).id}").json()
    flow = FlowFactory(created_by=alice, name="Empty", nodes=[], edges=[])
    open_builder(page, live_url, flow)

    page.evaluate("text => navigator.clipboard.writeText(text)", json.dumps(api_flow))
    page.locator("#drawflow").click(position={"x": 300, "y": 640})
    page.keyboard.press("Control+v")

    expect(canvas_node(page, "Greet")).to_be_visible()
    expect(page.locator(".connection")).to_have_count(1)
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert [node["type"] for node in flow.nodes] == ["webhook", "code"]
    assert flow.nodes[1]["data"] == api_flow["nodes"][1]["data"]


def test_palette_clicks_chain_rightwards_and_the_view_follows(
    alice_page, live_url, alice
):
    """Each palette node lands right of the selected one (the one added last),
    so a node at the view's right edge makes the view pan: the newest node is
    in view, none on another (issue 38 item 4)."""
    page = alice_page
    flow = FlowFactory(created_by=alice)
    flow.nodes[1]["position"] = {"x": 480, "y": 80}  # its right edge near the view's
    flow.save()
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    for kind in ["code", "delay", "transform", "condition"]:
        page.locator(f'#palette [data-kind="{kind}"]').click()

    expect(page.locator(".drawflow-node")).to_have_count(6)
    placed = boxes(page)
    for index, box in enumerate(placed):
        assert not any(overlaps(box, other) for other in placed[index + 1 :])
    expect(canvas_node(page, "Condition")).to_be_in_viewport()
    last = canvas_node(page, "Condition").bounding_box()
    canvas = page.locator("#drawflow").bounding_box()
    assert last["x"] + last["width"] <= canvas["x"] + canvas["width"]
