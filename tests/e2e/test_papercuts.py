"""The small things of an evaluation day (issue 38, item 7): each seen the way
a user sees it in Chromium."""

from __future__ import annotations

from playwright.sync_api import expect

from accounts.audit.models import AuditEvent
from accounts.models import Membership, Workspace
from tests.e2e.pages import canvas_node, open_builder
from tests.e2e.test_runs_page import run_ago
from tests.factories import FlowFactory
from tests.flows.graphs import chain, node, trigger


def spaced(*nodes: dict) -> dict:
    """A chain of nodes side by side on the canvas, not on top of each other."""
    for index, each in enumerate(nodes):
        each["position"] = {"x": 40 + 260 * index, "y": 80}
    node_list, edges = chain(*nodes)
    return {"nodes": node_list, "edges": edges}


def test_the_inspectors_connect_button_is_shown_whole(
    alice_page, live_url, alice, page_errors
):
    flow = FlowFactory(
        created_by=alice,
        name="Branches",
        **spaced(
            trigger(),
            node("check", "condition", expression="input.x"),
            node("shape", "transform", values={"a": "b"}),
        ),
    )
    page = alice_page
    open_builder(page, live_url, flow)
    canvas_node(page, "Check").click()

    pane = page.locator("#pane-inspector").bounding_box()
    buttons = page.locator(".connect-row").get_by_role("button", name="Connect")
    expect(buttons).to_have_count(2)
    sideways = "el => el.scrollWidth > el.clientWidth"
    assert not page.locator("#pane-inspector").evaluate(sideways), "the panel scrolls"
    for button in buttons.all():
        box = button.bounding_box()
        assert box["x"] + box["width"] <= pane["x"] + pane["width"]
    assert page_errors == []


def test_audit_changes_read_as_field_old_and_new_not_json(
    alice_page, live_url, alice, page_errors
):
    team = Workspace.objects.create(name="Team", slug="team")
    Membership.objects.create(workspace=team, user=alice, role="admin")
    AuditEvent.objects.create(
        action="member.role_changed",
        actor_label="alice",
        workspace=team,
        target_type="membership",
        target_label="vera",
        changes={"from": "viewer", "to": "editor", "workspace_id": str(team.pk)},
    )
    page = alice_page
    page.goto(f"{live_url}/workspaces/{team.pk}/audit/")

    changes = page.locator("tr.audit-row .audit-changes li")
    expect(changes.first).to_have_text("role: viewer → editor")
    expect(page.locator("#audit-table")).not_to_contain_text('{"')
    assert page_errors == []


def test_the_runs_chart_legend_shows_the_ranges_numbers_before_any_hover(
    alice_page, live_url, alice, page_errors
):
    orders = FlowFactory(created_by=alice, name="Orders")
    for hours in (1, 2, 3):
        run_ago(orders, hours, duration=20.0)
    run_ago(orders, 4, status="failed", duration=40.0)
    page = alice_page
    page.goto(f"{live_url}/runs/")

    legend = page.locator("#chart-counts .u-legend")
    expect(legend).to_contain_text("last 24 hours")
    expect(legend.locator(".u-series", has_text="succeeded")).to_contain_text("3")
    expect(legend.locator(".u-series", has_text="failed")).to_contain_text("1")
    durations = page.locator("#chart-durations .u-legend")
    expect(durations.locator(".u-series", has_text="p50")).to_contain_text("ms")
    for box in (legend, durations):
        expect(box).not_to_contain_text("--")
        expect(box).not_to_contain_text("–")
    assert page_errors == []


def test_the_webhook_nodes_settings_show_no_literal_null(
    alice_page, live_url, alice, page_errors
):
    flow = FlowFactory(created_by=alice, name="Hook", **spaced(trigger()))
    page = alice_page
    open_builder(page, live_url, flow)
    canvas_node(page, "Trigger").click()

    inspector = page.locator("#inspector")
    expect(inspector).to_contain_text("The HTTP methods the webhook URL takes")
    assert "null" not in inspector.inner_text()
    assert page_errors == []
