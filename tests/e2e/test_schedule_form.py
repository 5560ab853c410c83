"""The schedule trigger's form: presets, the next fire times in its zone, the
plain sentence, and errors next to their field."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.e2e.pages import canvas_node, open_builder
from tests.factories import FlowFactory


def test_the_schedule_form_previews_its_next_fire_times(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Schedule").click()

    expect(canvas_node(page, "Schedule")).to_be_visible()
    preview = page.get_by_test_id("schedule-preview")
    expect(preview.locator(".schedule-sentence")).to_have_text(
        "At 09:00, Monday through Friday, UTC"
    )
    expect(preview.locator(".schedule-next li")).to_have_count(5)

    page.get_by_label("Time zone").fill("Asia/Tokyo")
    expect(preview.locator(".schedule-sentence")).to_have_text(
        "At 09:00, Monday through Friday, Asia/Tokyo"
    )
    page.get_by_label("Cron presets").select_option(label="Every 5 minutes")
    expect(page.get_by_label("Cron expression")).to_have_value("*/5 * * * *")
    expect(preview.locator(".schedule-sentence")).to_have_text(
        "Every 5 minutes, Asia/Tokyo"
    )

    page.get_by_role("button", name="Save").click()
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert flow.nodes[0]["type"] == "schedule"
    assert flow.nodes[0]["data"]["cron"] == "*/5 * * * *"
    assert flow.nodes[0]["data"]["timezone"] == "Asia/Tokyo"
    assert page_errors == []


def test_a_bad_cron_is_shown_at_once_and_refused_at_save(alice_page, live_url, alice):
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)
    page.locator("#palette").get_by_role("button", name="Schedule").click()

    page.get_by_label("Cron expression").fill("every day")

    preview = page.get_by_test_id("schedule-preview")
    expect(preview.locator(".field-error")).to_contain_text("is not a cron expression")
    page.get_by_role("button", name="Save").click()
    field = page.locator('#inspector .field[data-field="data.cron"] > .field-error')
    expect(field).to_contain_text("'every day' is not a cron expression")
    flow.refresh_from_db()
    assert flow.nodes == []


def test_a_schedule_past_the_accounts_cap_is_refused_next_to_enabled(
    alice_page, live_url, alice
):
    # The browser tests' server allows one (tests/e2e/conftest.py).
    tick = {"id": "tick", "type": "schedule", "data": {"cron": "0 9 * * *"}}
    FlowFactory(created_by=alice, nodes=[tick], edges=[])
    page = alice_page
    flow = FlowFactory(created_by=alice, nodes=[], edges=[])
    open_builder(page, live_url, flow)
    page.locator("#palette").get_by_role("button", name="Schedule").click()

    page.get_by_role("button", name="Save").click()

    field = page.locator('#inspector .field[data-field="data.enabled"] > .field-error')
    expect(field).to_contain_text("You already have 1 flow with an enabled schedule")
    flow.refresh_from_db()
    assert flow.nodes == []
