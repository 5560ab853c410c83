"""Issue 38 item 4, placing and connecting: a palette node lands right of the
selected node and is connected from it, or in view when nothing is selected;
Fit stops at 60 %; palette search ranks name matches first.

Checked on the commit before (02aaa99): the new node was clamped into the
view's right edge and connected to nothing, Fit went down to 10 %, and "call"
listed HTTP request (palette order, its description says "Calls") before Call
flow. The nothing-selected test passed there already: it guards that rule
against the new placement."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.demo import webhook_code_graph
from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory


def dfid(node) -> str:
    return node.get_attribute("id").removeprefix("node-")


def test_a_palette_node_lands_right_of_the_selected_node_connected_from_it(
    alice_page, live_url, alice, page_errors
):
    page = open_builder(alice_page, live_url, FlowFactory(created_by=alice))
    greet = canvas_node(page, "Greet")
    greet.click()

    page.locator("#palette [data-kind=transform]").click()

    added = canvas_node(page, "Transform")
    expect(added).to_be_visible()
    was, now = greet.bounding_box(), added.bounding_box()
    gap = now["x"] - (was["x"] + was["width"])
    assert 10 <= gap <= 120, gap  # one node width plus a gap to the right
    assert abs(now["y"] - was["y"]) < 5
    view = page.locator("#drawflow").bounding_box()
    assert now["x"] + now["width"] <= view["x"] + view["width"]  # not clipped
    edge = page.locator(
        f".connection.node_out_node-{dfid(greet)}.node_in_node-{dfid(added)}"
    )
    expect(edge).to_have_count(1)
    assert page_errors == []


def test_a_second_palette_node_follows_a_free_output_never_the_error_port(
    alice_page, live_url, alice, page_errors
):
    nodes, edges = webhook_code_graph()
    greet = next(node for node in nodes if node["name"] == "Greet")
    greet["error_output"] = True  # its ports: output, then the red error port
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    page = open_builder(alice_page, live_url, flow)
    greet = canvas_node(page, "Greet")

    for _ in range(2):
        greet.click()
        page.locator("#palette [data-kind=transform]").click()

    leaving = page.locator(f".connection.node_out_node-{dfid(greet)}")
    expect(leaving.and_(page.locator(".output_1"))).to_have_count(2)
    expect(leaving.and_(page.locator(".output_2"))).to_have_count(0)
    assert page_errors == []


def test_with_nothing_selected_a_palette_node_lands_in_view(
    alice_page, live_url, alice
):
    page = open_builder(alice_page, live_url, FlowFactory(created_by=alice))

    page.locator("#palette [data-kind=code]").click()

    box = canvas_node(page, "Code").bounding_box()
    view = page.locator("#drawflow").bounding_box()
    assert (
        view["x"] <= box["x"] and box["x"] + box["width"] <= view["x"] + view["width"]
    )
    assert (
        view["y"] <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"]
    )
    expect(page.locator(".connection")).to_have_count(1)  # only the flow's own


def wide_flow():
    nodes = [
        {
            "id": f"step{i}",
            "type": "code",
            "name": f"Step {i}",
            "position": {"x": 40 + i * 420, "y": 80},
            "data": {"language": "javascript", "code": "return input;"},
        }
        for i in range(8)
    ]
    edges = [
        {
            "id": f"e{i}",
            "source": f"step{i}",
            "target": f"step{i + 1}",
            "sourceHandle": None,
        }
        for i in range(7)
    ]
    return nodes, edges


def test_fit_stops_at_sixty_percent(alice_page, live_url, alice):
    nodes, edges = wide_flow()
    page = open_builder(
        alice_page, live_url, FlowFactory(created_by=alice, nodes=nodes, edges=edges)
    )

    page.get_by_role("button", name="Fit").click()

    expect(page.locator("#zoom-reset")).to_have_text("60%")
    expect(canvas_node(page, "Step 0")).to_be_in_viewport()


def test_palette_search_puts_name_matches_first(alice_page, live_url, alice):
    page = open_builder(alice_page, live_url, FlowFactory(created_by=alice))
    search = page.get_by_label("Search nodes")

    search.fill("call")

    first = page.locator("#palette li:not([hidden]) [data-kind]").first
    expect(first).to_have_text("Call flow")
    search.press("Enter")
    expect(canvas_node(page, "Call flow")).to_have_count(1)
    expect(canvas_node(page, "HTTP request")).to_have_count(0)
