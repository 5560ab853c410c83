"""The builder's History tab pages through every run and filters them by
status, trigger and date, without cutting off the duration column."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory, FlowRunFactory


def runs_of(flow, count, **fields):
    return [
        FlowRunFactory(flow=flow, duration_ms=12345.6, **fields) for _ in range(count)
    ]


def open_history(page, live_url, flow):
    open_builder(page, live_url, flow)
    page.get_by_role("tab", name="History").click()
    return page.locator("#history-rows tr")


def test_history_pages_through_all_runs(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice)
    runs_of(flow, 23)
    rows = open_history(alice_page, live_url, flow)

    expect(rows).to_have_count(20)
    expect(alice_page.locator("#history-page-text")).to_have_text(
        "Page 1 of 2 · 23 runs"
    )
    expect(alice_page.get_by_role("button", name="Newer")).to_be_disabled()
    alice_page.get_by_role("button", name="Older").click()

    expect(rows).to_have_count(3)
    expect(alice_page.locator("#history-page-text")).to_have_text(
        "Page 2 of 2 · 23 runs"
    )
    expect(alice_page.get_by_role("button", name="Older")).to_be_disabled()


def test_history_filters_by_status_and_trigger(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice)
    runs_of(flow, 3, status=FlowRun.Status.SUCCEEDED)
    runs_of(flow, 2, status=FlowRun.Status.FAILED, trigger=FlowRun.Trigger.WEBHOOK)
    rows = open_history(alice_page, live_url, flow)
    expect(rows).to_have_count(5)

    alice_page.get_by_label("Status").select_option("failed")
    expect(rows).to_have_count(2)
    for index in range(2):
        expect(rows.nth(index)).to_contain_text("failed")

    alice_page.get_by_label("Trigger").select_option("manual")
    expect(rows).to_have_count(0)
    expect(alice_page.locator("#history-empty")).to_have_text(
        "No run matches these filters."
    )


def test_history_filters_by_date(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice)
    old = runs_of(flow, 2)
    FlowRun.objects.filter(pk__in=[run.pk for run in old]).update(
        created_at=timezone.now() - timedelta(days=10)
    )
    runs_of(flow, 1)
    rows = open_history(alice_page, live_url, flow)
    expect(rows).to_have_count(3)

    since = (timezone.now() - timedelta(days=2)).date().isoformat()
    alice_page.get_by_label("From").fill(since)
    alice_page.get_by_label("From").dispatch_event("change")

    expect(rows).to_have_count(1)


def test_the_duration_column_is_never_cut_off(alice_page, live_url, alice):
    flow = FlowFactory(created_by=alice)
    runs_of(flow, 2)
    rows = open_history(alice_page, live_url, flow)
    cell = rows.first.locator("td.num")
    expect(cell).to_have_text("12.35 s")

    pane = alice_page.locator("#pane-history").bounding_box()
    box = cell.bounding_box()
    assert box["x"] + box["width"] <= pane["x"] + pane["width"] + 0.5
    overflow = cell.evaluate("cell => cell.scrollWidth > cell.clientWidth")
    assert overflow is False
