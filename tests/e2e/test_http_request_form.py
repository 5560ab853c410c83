"""The HTTP request inspector: answer settings with their defaults, query
parameters as repeatable rows, pagination as JSON with its errors in place."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory


def test_a_new_http_node_fails_on_error_answers_and_takes_query_rows(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="HTTP request").click()
    inspector = page.locator("#inspector")
    expect(inspector.get_by_label("On HTTP error")).to_have_value("fail")
    expect(inspector.get_by_label("Response format")).to_have_value("auto")
    query = inspector.locator('[data-field="data.query"]')
    query.get_by_role("button", name="Add row").click()
    query.locator(".kv-row").nth(0).get_by_label("Key").fill("tag")
    query.locator(".kv-row").nth(0).get_by_label("Value").fill("{{ input.tag }}")
    query.get_by_role("button", name="Add row").click()
    query.locator(".kv-row").nth(1).get_by_label("Key").fill("tag")
    query.locator(".kv-row").nth(1).get_by_label("Value").fill("b")
    inspector.get_by_label("Response format").select_option("json")
    inspector.get_by_label("Pagination").fill(
        json.dumps({"mode": "link", "items": "data"})
    )
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    flow.refresh_from_db()
    data = flow.nodes[2]["data"]
    assert data["query"] == [
        {"name": "tag", "value": "{{ input.tag }}"},
        {"name": "tag", "value": "b"},
    ]
    assert (data["on_http_error"], data["response_format"]) == ("fail", "json")
    assert data["pagination"] == {"mode": "link", "items": "data"}
    assert page_errors == []


def test_a_pagination_without_its_parameter_shows_the_error_by_the_field(
    alice_page, live_url, alice
):
    page = alice_page
    flow = FlowFactory(created_by=alice)
    open_builder(page, live_url, flow)

    canvas_node(page, "Greet").click()
    page.locator("#palette").get_by_role("button", name="HTTP request").click()
    page.locator("#inspector").get_by_label("Pagination").fill('{"mode": "page"}')
    page.keyboard.press("Control+s")

    field = page.locator('#inspector [data-field="data.pagination"]')
    expect(field.locator(".field-error")).to_have_text(
        "Mode page needs the query parameter."
    )
    flow.refresh_from_db()
    assert len(flow.nodes) == 2
