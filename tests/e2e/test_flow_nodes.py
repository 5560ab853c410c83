"""Building with the flow-calling and branching kinds in the browser: a
for_each from the palette, and a switch whose ports follow its cases."""

from __future__ import annotations

from playwright.sync_api import expect

from flows.models import FlowRun
from tests.e2e.pages import canvas_node, connect, open_builder, save_screenshot
from tests.factories import FlowFactory
from tests.flows.graphs import chain, code, trigger

FULFIL = "if (input.id === 2) throw new Error('out of stock'); return {sent: input.id};"


def test_a_user_builds_a_for_each_from_the_palette_runs_it_and_reads_the_counts(
    alice_page, live_url, alice, page_errors
):
    nodes, edges = chain(trigger(), code("fulfil", FULFIL))
    body = FlowFactory(created_by=alice, name="Fulfil order", nodes=nodes, edges=edges)
    flow = FlowFactory(created_by=alice, name="Orders", nodes=[], edges=[])
    page = alice_page
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Webhook").click()
    page.locator("#palette").get_by_role("button", name="For each").click()
    webhook, loop = canvas_node(page, "Webhook"), canvas_node(page, "For each")
    connect(page, webhook, loop)
    loop.click()
    page.get_by_label("Items", exact=True).fill("{{ input.orders }}")
    page.get_by_label("Flow", exact=True).select_option(label="Fulfil order")
    page.get_by_label("When an item fails").select_option("continue")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")

    page.get_by_role("tab", name="Run").click()
    page.get_by_label("Input (JSON object)").fill(
        '{"orders": [{"id": 1}, {"id": 2}, {"id": 3}]}'
    )
    page.get_by_role("button", name="Run flow").click()

    result = page.locator("#run-result")
    expect(result.get_by_test_id("run-status")).to_have_text("succeeded")
    output = result.locator('.step[data-node-id="for_each_1"] .step-output')
    expect(output).to_contain_text('"count": 3')
    expect(output).to_contain_text('"succeeded": 2')
    expect(output).to_contain_text('"failed": 1')
    expect(output).to_contain_text("out of stock")
    save_screenshot(page, "for-each")
    assert FlowRun.objects.filter(flow=body, trigger="call").count() == 3
    assert page_errors == []


def test_a_switch_draws_a_port_per_case_and_one_for_default(
    alice_page, live_url, alice, page_errors
):
    flow = FlowFactory(created_by=alice, name="Router", nodes=[], edges=[])
    page = alice_page
    open_builder(page, live_url, flow)

    page.locator("#palette").get_by_role("button", name="Switch").click()
    switch = canvas_node(page, "Switch")
    expect(switch.locator(".outputs .output")).to_have_count(3)
    expect(switch.locator(".node-handles")).to_have_text("largesmalldefault")

    switch.click()
    page.get_by_role("button", name="Add case").click()
    page.get_by_label("Output name").last.fill("vip")
    page.get_by_label("Expression", exact=True).last.fill("input.vip")

    expect(switch.locator(".outputs .output")).to_have_count(4)
    expect(switch.locator(".node-handles")).to_have_text("largesmallvipdefault")
    page.keyboard.press("Control+s")
    expect(page.locator("#save-state")).to_have_text("Saved")
    flow.refresh_from_db()
    assert [case["handle"] for case in flow.nodes[0]["data"]["cases"]] == [
        "large",
        "small",
        "vip",
    ]
    assert page_errors == []
