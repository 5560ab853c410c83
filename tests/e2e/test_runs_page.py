"""The Runs page: every run of the user's flows, filters, paging and the chart."""

from __future__ import annotations

import re
from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from flows.engine import run_flow
from flows.models import FlowRun
from tests.e2e.pages import save_screenshot
from tests.factories import FlowFactory, FlowRunFactory
from tests.flows.graphs import edge, node, trigger


def run_ago(flow, hours: float, **fields) -> FlowRun:
    run = FlowRunFactory(flow=flow, duration_ms=fields.pop("duration", 12.0), **fields)
    moment = timezone.now() - timedelta(hours=hours)
    FlowRun.objects.filter(pk=run.pk).update(created_at=moment)
    return run


def test_the_runs_page_filters_pages_and_charts_the_users_runs(
    alice_page, live_url, alice, bob, page_errors
):
    page = alice_page
    orders = FlowFactory(created_by=alice, name="Orders")
    alerts = FlowFactory(created_by=alice, name="Alerts")
    for index in range(27):
        run_ago(orders, index * 0.5, duration=10.0 + index)
    run_ago(alerts, 1, status="failed", trigger="webhook", duration=300.0)
    run_ago(FlowFactory(created_by=bob, name="Bob's secret"), 1)

    page.goto(f"{live_url}/runs/")

    rows = page.locator("tr.run-row")
    expect(rows).to_have_count(25)
    expect(page.locator(".pager")).to_contain_text("Page 1 of 2 · 28 runs")
    expect(page.get_by_text("Bob's secret")).to_have_count(0)
    summary = page.locator("#chart-summary")
    expect(summary).to_contain_text(
        "28 runs in the last 24 hours (1 failed or timed out)"
    )
    expect(summary).to_contain_text(re.compile(r"p50 [\d.]+ ms · p95 [\d.]+ ms"))
    expect(page.locator("#chart-counts canvas")).to_have_count(1)
    expect(page.locator("#chart-durations .u-legend")).to_contain_text("p95")
    save_screenshot(page, "runs")

    page.get_by_role("link", name="Older").click()
    expect(rows).to_have_count(3)

    page.get_by_label("Status", exact=True).select_option("failed")
    page.get_by_label("Trigger", exact=True).select_option("webhook")
    page.get_by_role("button", name="Filter").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Alerts")
    expect(rows.first).to_contain_text("300.0 ms")
    expect(page).to_have_url(re.compile(r"status=failed&trigger=webhook"))

    page.get_by_role("button", name="Last 30d").click()
    expect(page.get_by_role("button", name="Last 30d")).to_have_attribute(
        "aria-pressed", "true"
    )
    expect(summary).to_contain_text("in the last 30 days")
    expect(summary).to_contain_text("per day")
    assert page_errors == []


def test_the_runs_page_says_how_to_get_runs_and_when_filters_match_nothing(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/runs/")

    expect(page.locator("#runs-empty")).to_contain_text("No runs yet")
    expect(page.locator("#chart-empty")).to_have_text("No runs in the last 24 hours.")

    run_ago(FlowFactory(created_by=alice), 2)
    page.goto(f"{live_url}/runs/?status=timed_out")
    expect(page.locator("#runs-empty")).to_contain_text("No runs match these filters")
    page.get_by_role("link", name="clear the filters").click()
    expect(page.locator("tr.run-row")).to_have_count(1)
    assert page_errors == []


def test_the_run_page_names_nodes_and_hides_the_sandboxs_stack_lines(
    alice_page, live_url, alice, page_errors
):
    nodes = [
        trigger(),
        {
            **node("shape", "transform", values={"city": "{{ input.address.city }}"}),
            "name": "Shape the order",
        },
    ]
    flow = FlowFactory(created_by=alice, nodes=nodes, edges=[edge("trigger", "shape")])
    run = run_flow(flow, {}, "manual")
    assert "at " in run.error["message"]  # the stored message keeps the frames

    alice_page.goto(f"{live_url}/runs/{run.id}/")

    banner = alice_page.locator(".run-error")
    expect(banner.locator("strong")).to_have_text("Shape the order failed")
    expect(banner).to_contain_text(
        "template_error: A {{ }} expression failed: TypeError: "
        "cannot read property 'city' of undefined"
    )
    expect(banner).not_to_contain_text("<input>")
    step = alice_page.locator(".timeline-step.status-failed .step-error")
    expect(step).not_to_contain_text("native")
    expect(alice_page.get_by_role("link", name="Runs").first).to_be_visible()
    assert page_errors == []
