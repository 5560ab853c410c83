"""The flow settings at the top of the builder: choosing the error flow (and the
links between a failed run and the run of its error flow), and "Offer over MCP"."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.engine import background, run_flow
from flows.models import FlowRun
from tests.e2e.pages import open_builder
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger


def flow_of(owner, name, source):
    nodes, edges = chain(trigger(), code("work", source))
    return FlowFactory(created_by=owner, name=name, nodes=nodes, edges=edges)


def test_the_error_flow_is_chosen_in_the_builder_and_the_runs_link_both_ways(
    alice_page, live_url, alice, bob, page_errors
):
    page = alice_page
    handler = flow_of(alice, "Alert the team", "return {seen: input.run_id};")
    FlowFactory(created_by=bob, name="Bob's secret flow")
    failing = flow_of(alice, "Import orders", "throw new Error('bad row');")
    open_builder(page, live_url, failing)
    choice = page.get_by_label("On failure, run flow")
    expect(choice.locator("option")).to_have_text(["Nothing", "Alert the team"])

    with page.expect_response(lambda r: r.request.method == "PATCH") as saved:
        choice.select_option(label="Alert the team")

    assert saved.value.status == 200
    expect(choice).to_have_value(str(handler.id))
    failing.refresh_from_db()
    assert failing.error_flow_id == handler.id
    run = run_flow(failing, {}, FlowRun.Trigger.MANUAL)
    error_run = FlowRun.objects.get(flow=handler)
    background.execute_queued(str(error_run.id))

    page.goto(f"{live_url}/runs/{run.id}/")
    page.get_by_role("link", name="a run of Alert the team").click()
    expect(page.locator("h1")).to_contain_text("Succeeded")
    page.get_by_role("link", name=f"run {str(run.id)[:8]}").click()
    expect(page).to_have_url(f"{live_url}/runs/{run.id}/")
    assert page_errors == []


def test_offer_over_mcp_is_ticked_in_the_builder_and_saved_as_a_version(
    alice_page, live_url, alice, page_errors
):
    page = alice_page
    flow = flow_of(alice, "Look up order", "return input;")
    open_builder(page, live_url, flow)
    offer = page.get_by_label("Offer over MCP")
    expect(offer).not_to_be_checked()

    with page.expect_response(lambda r: r.request.method == "PATCH") as saved:
        offer.check()

    assert saved.value.status == 200
    expect(offer).to_be_checked()
    flow.refresh_from_db()
    assert flow.mcp_offered is True
    newest = flow.versions.get(number=flow.version)
    assert newest.settings["mcp_offered"] is True
    page.reload()
    expect(page.get_by_label("Offer over MCP")).to_be_checked()
    assert page_errors == []
