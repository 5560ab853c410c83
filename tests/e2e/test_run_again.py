"""Re-run and retry from the browser: a failed run retried from its failed node
in 2 clicks from the Runs page, the node that succeeded not run again; the
History tab's buttons by keyboard; the Runs page's search and "Retry all
failed" kept in the URL."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from accounts.audit.actor import Actor
from flows.engine import run_flow
from flows.history.save import save_flow
from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.http_server import base

FAILING = "if (!input.fixed) throw new Error('the parser broke'); return prev;"


@pytest.fixture
def failed_run(alice, server, allow_loopback):
    """A run of fetch (an HTTP call the test's server counts) → parse, failed
    at parse; then parse is fixed and saved."""
    nodes, edges = chain(
        trigger(),
        node("fetch", "http_request", method="GET", url=base(server) + "/json"),
        code("parse", FAILING),
    )
    flow = FlowFactory(created_by=alice, name="Orders", nodes=nodes, edges=edges)
    run = run_flow(flow, {"order": 4711}, FlowRun.Trigger.MANUAL)
    assert run.status == "failed"
    fixed = [*nodes[:2], code("parse", "return {parsed: prev.body.ok};")]
    save_flow(flow, {"nodes": fixed}, actor=Actor.system("test"), source="edit")
    return run


def fetches(server) -> int:
    return server.hits.count("/json")


def test_a_failed_run_is_retried_from_its_failed_node_in_two_clicks(
    alice_page, live_url, failed_run, server, page_errors
):
    page = alice_page
    page.goto(f"{live_url}/runs/")

    page.get_by_role("link", name="Details").click()  # 1
    page.get_by_role("button", name="Retry from failed node").click()  # 2

    expect(page.locator("#retry-of")).to_contain_text("Retries run")
    expect(page.locator("h1 .pill")).to_have_text("Succeeded")
    fetch = page.locator(".timeline-step", has_text="Fetch")
    expect(fetch.get_by_text("Reused", exact=True)).to_be_visible()
    assert fetches(server) == 1  # fetch did not run again
    retried = FlowRun.objects.get(retry_of=failed_run)
    assert page.url == f"{live_url}/runs/{retried.id}/"
    assert retried.results["parse"] == {"parsed": True}
    assert page_errors == []


def test_the_history_tab_reruns_and_retries_by_keyboard(
    alice_page, live_url, failed_run, server, page_errors
):
    page = alice_page
    open_builder(page, live_url, failed_run.flow)
    page.get_by_role("tab", name="History").click()
    row = page.locator("#history-rows tr").first
    row.focus()
    page.keyboard.press("Enter")

    retry = page.get_by_role("button", name="Retry from failed node")
    retry.focus()
    page.keyboard.press("Enter")

    detail = page.locator("#history-detail")
    expect(detail.get_by_test_id("run-status")).to_have_text("succeeded")
    expect(page.locator("#history-rows tr")).to_have_count(2)
    assert fetches(server) == 1
    page.get_by_role("button", name="Re-run").press("Enter")
    expect(page.locator("#history-rows tr")).to_have_count(3)
    assert fetches(server) == 2
    assert page_errors == []


def test_the_runs_page_searches_run_data_and_retries_all_failed(
    alice_page, live_url, failed_run, page_errors
):
    page = alice_page
    other = FlowFactory(created_by=failed_run.flow.created_by, name="Other")
    run_flow(other, {"name": "Grace"}, FlowRun.Trigger.MANUAL)
    page.goto(f"{live_url}/runs/")
    expect(page.locator("tr.run-row")).to_have_count(2)

    page.get_by_label("Search").fill("parser broke")
    page.get_by_role("button", name="Filter").click()

    expect(page).to_have_url(re.compile(r"q=parser\+broke"))
    expect(page.locator("tr.run-row")).to_have_count(1)
    expect(page.locator("tr.run-row")).to_contain_text("Orders")
    page.reload()
    expect(page.get_by_label("Search")).to_have_value("parser broke")
    expect(page.locator("tr.run-row")).to_have_count(1)

    page.get_by_role("button", name="Retry all failed").click()
    expect(page.locator("#retry-failed-result")).to_have_text("Queued 1 retry.")
    assert FlowRun.objects.get(retry_of=failed_run).status in (
        "queued",
        "running",
        "succeeded",
    )

    page.get_by_label("Flow").select_option(label="Other")
    page.get_by_label("Search").fill("")
    page.get_by_role("button", name="Filter").click()
    expect(page).to_have_url(re.compile(rf"flow={other.id}"))
    expect(page.locator("tr.run-row")).to_have_count(1)
    expect(page.locator("tr.run-row")).to_contain_text("Other")
    assert page_errors == []
