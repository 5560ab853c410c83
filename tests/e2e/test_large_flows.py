"""Large flows: Fit (down to 60 %), the wheel pans, Ctrl+wheel zooms, a minimap
(builder/view.js)."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import open_builder
from tests.factories import FlowFactory


def sixty_node_flow(owner):
    nodes = [
        {
            "id": f"d{index}",
            "type": "delay",
            "name": f"Wait {index}",
            "position": {"x": 40 + (index % 10) * 240, "y": 80 + (index // 10) * 120},
            "data": {"ms": 1},
        }
        for index in range(60)
    ]
    return FlowFactory(created_by=owner, nodes=nodes, edges=[])


def nodes_in_view(page):
    canvas = page.locator("#drawflow").bounding_box()
    inside = 0
    for node in page.locator(".drawflow-node").all():
        box = node.bounding_box()
        inside += (
            box["x"] >= canvas["x"]
            and box["y"] >= canvas["y"]
            and box["x"] + box["width"] <= canvas["x"] + canvas["width"]
            and box["y"] + box["height"] <= canvas["y"] + canvas["height"]
        )
    return inside


def test_fit_shows_a_sixty_node_flow_from_its_top_left_at_sixty_percent(
    alice_page, live_url, alice
):
    """Fit zooms out no further than 60 % (issue 38 item 4): the rest of a flow
    this big is reached by panning, and the minimap still shows every node."""
    page = alice_page
    open_builder(page, live_url, sixty_node_flow(alice))
    page.get_by_role("button", name="Zoom in").click()

    page.get_by_role("button", name="Fit").click()

    expect(page.locator("#zoom-reset")).to_have_text("60%")
    assert 0 < nodes_in_view(page) < 60
    expect(page.locator(".drawflow-node").first).to_be_in_viewport()
    expect(page.locator("#minimap .minimap-node")).to_have_count(60)


def test_the_wheel_pans_and_ctrl_wheel_zooms(alice_page, live_url, alice):
    page = alice_page
    open_builder(page, live_url, sixty_node_flow(alice))
    page.locator("#zoom-reset").click()
    first = page.locator(".drawflow-node").first
    before = first.bounding_box()
    canvas = page.locator("#drawflow").bounding_box()
    page.mouse.move(canvas["x"] + 300, canvas["y"] + 300)

    page.mouse.wheel(0, 200)
    page.wait_for_timeout(100)
    after = first.bounding_box()
    assert round(after["y"] - before["y"]) == -200
    assert round(after["x"] - before["x"]) == 0
    expect(page.locator("#zoom-reset")).to_have_text("100%")

    page.keyboard.down("Control")
    page.mouse.wheel(0, -100)
    page.keyboard.up("Control")
    expect(page.locator("#zoom-reset")).to_have_text("110%")


def test_a_click_on_the_minimap_moves_the_view_there(alice_page, live_url, alice):
    page = alice_page
    open_builder(page, live_url, sixty_node_flow(alice))
    page.locator("#zoom-reset").click()
    last = page.locator(".drawflow-node").last  # far right, bottom row
    assert nodes_in_view(page) < 60

    minimap = page.locator("#minimap").bounding_box()
    page.mouse.click(
        minimap["x"] + minimap["width"] - 20, minimap["y"] + minimap["height"] - 25
    )

    expect(last).to_be_in_viewport()
    view = page.locator("#minimap .minimap-view")
    assert float(view.get_attribute("x")) > 1000
