"""Retry settings in the inspector, their field errors, and the attempts a
retried node shows in the run panel and on the run page."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def flaky_flow(owner):
    nodes, edges = chain(trigger(), code("boom", "throw new Error('flaky');"))
    return FlowFactory(created_by=owner, name="Flaky", nodes=nodes, edges=edges)


def test_retries_set_in_the_inspector_show_each_attempt(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = flaky_flow(alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Boom").click()
    page.get_by_text("Retry on failure").click()
    page.get_by_label("Attempts").fill("3")
    page.get_by_label("Wait before retrying (ms)").fill("10")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[1]["retry"] == {"max_attempts": 3, "delay_ms": 10}

    page.get_by_role("tab", name="Run").click()
    page.get_by_role("button", name="Run flow").click()

    attempts = page.locator('#run-result .step[data-node-id="boom"] .step-attempts li')
    expect(attempts).to_have_count(3)
    expect(attempts.nth(0)).to_contain_text("Attempt 1 failed")
    expect(attempts.nth(2)).to_contain_text("flaky")
    page.get_by_role("link", name="Open run page").click()
    expect(page.locator(".timeline-step .step-attempts li")).to_have_count(3)
    assert page_errors == []


def test_an_out_of_range_attempt_count_is_shown_next_to_the_field(
    alice_page, live_url, alice
):
    page = alice_page
    flow = flaky_flow(alice)
    open_builder(page, live_url, flow)
    canvas_node(page, "Boom").click()
    page.get_by_text("Retry on failure").click()
    page.get_by_label("Attempts").fill("11")
    page.get_by_role("button", name="Save").click()

    field = page.locator('#inspector .field[data-field="retry.max_attempts"]')
    expect(field.locator(".field-error")).to_have_text(
        "Attempts must be a whole number 1-10."
    )
    flow.refresh_from_db()
    assert "retry" not in flow.nodes[1]
