"""A run waiting for approval, in the browser: the builder shows its resume
link, the Runs page too, and the link's page resumes it with Approve."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, node, trigger
from tests.processes import needs_postgres

pytestmark = needs_postgres


def test_a_run_waits_for_approval_and_goes_on_once_approved(
    alice_page, live_url, alice, processes
):
    nodes, edges = chain(
        trigger(),
        node("approve", "wait", mode="callback", timeout_s=3600),
        code("after", "return {approved: prev.approved};"),
    )
    nodes[1]["name"] = "Approve the refund"
    flow = FlowFactory(created_by=alice, name="Refunds", nodes=nodes, edges=edges)
    processes.worker()
    page = open_builder(alice_page, live_url, flow)
    page.get_by_role("tab", name="Run").click()

    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("waiting")
    expect(result.get_by_test_id("run-waiting")).to_contain_text(
        "Waiting at Approve the refund"
    )
    link = result.get_by_test_id("run-resume-url").input_value()
    assert link.startswith(f"{live_url}/api/resume/")

    runs_page = page.context.new_page()
    runs_page.goto(f"{live_url}/runs/?status=waiting")
    expect(runs_page.get_by_role("link", name="Resume link")).to_have_attribute(
        "href", link
    )
    runs_page.goto(link)  # what the approver opens: nothing resumes yet
    assert FlowRun.objects.get(flow=flow).status == "waiting"
    runs_page.get_by_role("button", name="Approve").click()
    expect(runs_page.get_by_role("status")).to_contain_text("approved")

    expect(result.get_by_test_id("run-status")).to_have_text(
        "succeeded", timeout=30_000
    )
    expect(result.locator('.step[data-node-id="after"] .step-output')).to_contain_text(
        '"approved": true'
    )
