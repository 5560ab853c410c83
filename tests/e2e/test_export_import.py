"""Moving a flow: download its export, import it back by upload or by pasting."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from flows.models import Flow
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import code, edge, trigger


def test_a_downloaded_export_uploads_again_as_a_new_flow(
    alice_page, live_url, alice, tmp_path, page_errors
):
    page = alice_page
    original = FlowFactory(
        created_by=alice, name="Order alerts", webhook_secret="whsec_x"
    )
    page.goto(f"{live_url}/")

    row = page.locator("tr.flow-row", has_text="Order alerts")
    with page.expect_download() as download_info:
        row.get_by_role("link", name="Export").click()
    download = download_info.value
    assert download.suggested_filename == "order-alerts.weir.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    document = json.loads(saved.read_text())
    assert document["weir_version"] == 1
    assert "whsec_x" not in saved.read_text()

    page.get_by_role("button", name="Import…").click()
    page.get_by_label("File").set_input_files(str(saved))
    expect(page.get_by_label("JSON")).to_have_value(saved.read_text())
    page.get_by_role("button", name="Import flow").click()

    page.wait_for_selector("body[data-builder-ready]")
    copy = Flow.objects.exclude(pk=original.pk).get(created_by=alice)
    expect(page).to_have_url(f"{live_url}/flows/{copy.id}/")
    assert (copy.name, copy.nodes, copy.edges) == (
        "Order alerts",
        original.nodes,
        original.edges,
    )
    assert copy.webhook_secret == ""
    assert page_errors == []


def test_pasted_json_with_problems_lists_them_by_node_name(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/")
    broken = {
        "weir_version": 1,
        "name": "Broken",
        "nodes": [trigger(), {**code("greet", ""), "name": "Say hello"}],
        "edges": [edge("trigger", "greet")],
    }

    page.get_by_role("button", name="Import…").click()
    page.get_by_label("JSON").fill("{nope")
    page.get_by_role("button", name="Import flow").click()
    expect(page.locator("#import-error")).to_contain_text("This is not JSON")

    page.get_by_label("JSON").fill(json.dumps(broken))
    page.get_by_role("button", name="Import flow").click()

    error = page.locator("#import-error")
    expect(error).to_contain_text("The flow was not imported")
    expect(error.locator("li")).to_have_text(
        ["Say hello (data.code): Code must be non-empty text."]
    )
    assert not Flow.objects.filter(created_by=alice).exists()

    page.get_by_label("JSON").fill(json.dumps({**broken, "weir_version": 7}))
    page.get_by_role("button", name="Import flow").click()
    expect(error).to_contain_text("weir_version 7 is not one this server reads")
    assert page_errors == []


def test_the_builder_has_an_export_link(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice, name="Greeter")
    page = open_builder(alice_page, live_url, flow)

    with page.expect_download() as download_info:
        page.get_by_role("link", name="Export").click()

    assert download_info.value.suggested_filename == "greeter.weir.json"
