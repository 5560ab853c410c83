"""Runs the builder follows live: background runs executed by a real worker
process, shown step by step, and cancelled from the builder."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from flows.engine.background import enqueue_run
from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.processes import needs_postgres

pytestmark = needs_postgres


def slow_flow(owner, ms=4000):
    nodes, edges = chain(
        trigger(),
        node("wait", "delay", ms=ms),
        code("after", "return {done: true};"),
    )
    return FlowFactory(created_by=owner, name="Slow", nodes=nodes, edges=edges)


def test_a_background_run_is_followed_live_until_it_succeeds(
    alice_page, live_url, alice, processes
):
    processes.worker()
    page = open_builder(alice_page, live_url, FlowFactory(created_by=alice))
    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill('{"name": "Ada"}')
    page.get_by_label(re.compile("Run in the background")).check()

    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text(
        "succeeded", timeout=30_000
    )
    expect(result.locator('.step[data-node-id="greet"] .step-output')).to_contain_text(
        '"greeting": "hi Ada"'
    )
    run = FlowRun.objects.get()
    assert (run.status, run.background) == ("succeeded", True)
    expect(result.get_by_test_id("run-cancel")).to_have_count(0)


def test_a_running_background_run_shows_progress_and_can_be_cancelled(
    alice_page, live_url, alice, processes
):
    processes.worker()
    flow = slow_flow(alice)
    page = open_builder(alice_page, live_url, flow)
    page.get_by_role("tab", name="Run").click()
    page.get_by_label(re.compile("Run in the background")).check()

    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    status = result.get_by_test_id("run-status")
    expect(status).to_have_text("running", timeout=30_000)
    expect(result.get_by_test_id("run-live")).to_contain_text("Running")
    result.get_by_test_id("run-cancel").click()
    expect(result.get_by_test_id("run-status")).to_have_text(
        "cancelled", timeout=30_000
    )
    run = FlowRun.objects.get(flow=flow)
    assert run.status == "cancelled"
    assert not run.steps.filter(node_id="after", status="succeeded").exists()


def test_history_shows_a_queued_webhook_run_turn_succeeded_when_a_worker_takes_it(
    alice_page, live_url, alice, processes
):
    flow = FlowFactory(created_by=alice)
    queued = enqueue_run(flow, {"name": "Bea"}, FlowRun.Trigger.WEBHOOK)
    page = open_builder(alice_page, live_url, flow)
    page.get_by_role("tab", name="History").click()
    row = page.locator(f'#history-rows tr[data-run-id="{queued.id}"]')
    expect(row).to_contain_text("queued")
    row.click()
    expect(page.locator("#history-detail").get_by_test_id("run-live")).to_contain_text(
        "Waiting for a worker"
    )

    processes.worker()

    expect(row).to_contain_text("succeeded", timeout=30_000)
    expect(
        page.locator('#history-detail .step[data-node-id="greet"] .step-output')
    ).to_contain_text('"greeting": "hi Bea"')
