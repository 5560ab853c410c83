"""The flow list: create, rename, duplicate and delete, as a user sees them."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import Flow
from tests.factories import FlowFactory, FlowRunFactory


def test_the_empty_list_explains_how_to_start(alice_page, live_url):
    alice_page.goto(f"{live_url}/")

    expect(alice_page.locator("#empty-flows")).to_contain_text("No flows yet")
    expect(alice_page.locator("#empty-flows")).to_contain_text("Create flow")


def test_creating_a_flow_opens_it_in_the_builder(alice_page, live_url, alice):
    alice_page.goto(f"{live_url}/")
    alice_page.get_by_label("New flow name").fill("Order alerts")
    alice_page.get_by_role("button", name="Create flow").click()

    alice_page.wait_for_selector("body[data-builder-ready]")
    flow = Flow.objects.get(created_by=alice)
    assert flow.name == "Order alerts"
    expect(alice_page).to_have_url(f"{live_url}/flows/{flow.id}/")
    expect(alice_page.get_by_label("Flow name")).to_have_value("Order alerts")
    expect(alice_page.locator("#canvas-empty")).to_be_visible()


def test_the_list_shows_nodes_last_run_and_webhook_state(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, name="Greeter", webhook_enabled=False)
    FlowRunFactory(flow=flow, status="failed")

    alice_page.goto(f"{live_url}/")

    row = alice_page.locator("tr.flow-row", has_text="Greeter")
    expect(row.locator("td").nth(1)).to_have_text("2")
    expect(row).to_contain_text("failed")
    expect(row).to_contain_text("ago")
    expect(row.locator(".pill.off")).to_have_text("Off")


def test_renaming_a_flow_changes_its_name(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, name="Old name")
    alice_page.goto(f"{live_url}/")

    alice_page.get_by_role("button", name="Rename").click()
    alice_page.get_by_label("New name").fill("New name")
    alice_page.get_by_role("button", name="Save").click()

    expect(alice_page.locator(".flow-link")).to_have_text("New name")
    flow.refresh_from_db()
    assert flow.name == "New name"


def test_duplicating_a_flow_copies_its_graph(alice_page, live_url, alice):
    original = FlowFactory(created_by=alice, name="Greeter")
    alice_page.goto(f"{live_url}/")

    alice_page.get_by_role("button", name="Duplicate").click()

    alice_page.wait_for_selector("body[data-builder-ready]")
    copy = Flow.objects.exclude(pk=original.pk).get(created_by=alice)
    assert copy.name == "Copy of Greeter"
    assert copy.nodes == original.nodes
    assert copy.edges == original.edges
    expect(alice_page.locator(".drawflow-node")).to_have_count(2)


def test_deleting_a_flow_asks_first(alice_page, live_url, alice):
    FlowFactory(created_by=alice, name="Doomed")
    alice_page.goto(f"{live_url}/")

    alice_page.get_by_role("button", name="Delete").click()
    dialog = alice_page.locator("#delete-dialog")
    expect(dialog).to_contain_text("Doomed")
    dialog.get_by_role("button", name="Cancel").click()
    assert Flow.objects.filter(created_by=alice).count() == 1

    alice_page.get_by_role("button", name="Delete").click()
    dialog.get_by_role("button", name="Delete flow").click()

    expect(alice_page.locator("#empty-flows")).to_be_visible()
    assert not Flow.objects.filter(created_by=alice).exists()
