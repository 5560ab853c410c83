"""The builder's Versions tab: list, diff on the canvas, restore; the 412 link."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from accounts.audit.actor import Actor
from flows.history.save import save_flow
from tests.e2e.pages import canvas_node, open_builder, save_screenshot
from tests.factories import FlowFactory, UserFactory


def second_version(flow, by=None):
    """v2: greet's code changed, a node added after it; the trigger moved."""
    nodes = [
        {**n, "data": {**n["data"], "code": "return {v: 2};"}}
        if n["id"] == "greet"
        else {**n, "position": {"x": 60, "y": 120}}
        for n in flow.nodes
    ]
    nodes.append(
        {
            "id": "after",
            "type": "code",
            "name": "After",
            "position": {"x": 600, "y": 80},
            "data": {"language": "javascript", "code": "return prev;"},
        }
    )
    edges = [
        *flow.edges,
        {"id": "e2", "source": "greet", "target": "after", "sourceHandle": None},
    ]
    actor = Actor(user=by, label=by.username) if by else Actor()
    save_flow(flow, {"nodes": nodes, "edges": edges}, actor=actor, source="edit")


def test_a_version_shows_its_changes_on_the_canvas_and_restores(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    second_version(flow, by=alice)
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Versions").click()
    rows = page.locator("#versions-rows tr")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("v2")
    expect(rows.nth(0)).to_contain_text("alice")
    rows.nth(0).click()

    expect(canvas_node(page, "After")).to_have_class(re.compile("diff-added"))
    expect(canvas_node(page, "Greet")).to_have_class(re.compile("diff-changed"))
    expect(canvas_node(page, "Webhook")).to_have_class(re.compile("diff-moved"))
    detail = page.locator("#versions-detail")
    expect(detail).to_contain_text("data.code")
    expect(detail).to_contain_text("This is the flow as it is now.")
    save_screenshot(page, "builder-versions")

    rows.nth(1).click()  # v1, the first: everything in it is "added"
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Restore version 1").click()

    page.wait_for_selector("body[data-builder-ready]")
    expect(canvas_node(page, "After")).to_have_count(0)
    flow.refresh_from_db()
    assert flow.version == 3
    assert [n["id"] for n in flow.nodes] == ["trigger", "greet"]
    page.get_by_role("tab", name="Inspector").click()
    expect(page.locator(".diff-added")).to_have_count(0)  # colours leave with the tab
    assert page_errors == []


def test_a_removed_node_is_listed_in_red(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    second_version(flow)
    without = [n for n in flow.nodes if n["id"] != "after"]
    changes = {"nodes": without, "edges": flow.edges[:1]}
    save_flow(flow, changes, actor=Actor(), source="edit")
    open_builder(page, live_url, flow)

    page.get_by_role("tab", name="Versions").click()
    page.locator("#versions-rows tr").first.click()

    removed = page.locator("#versions-detail .diff-item.diff-removed")
    expect(removed.first).to_contain_text("After")
    expect(removed.first).to_have_css("border-left-color", "rgb(192, 57, 43)")


def test_a_412_says_who_saved_and_links_to_their_changes(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)
    second_version(flow, by=UserFactory(username="bob"))

    page.locator("#flow-name").fill("My rename")
    page.keyboard.press("Control+s")

    banner = page.locator(".banner")
    expect(banner).to_contain_text("bob saved version 2 of this flow")
    page.locator("#conflict-diff").click()
    expect(page.locator("#pane-versions")).to_be_visible()
    expect(canvas_node(page, "Greet")).to_have_class(re.compile("diff-changed"))
